import Foundation
import GraftHost
import GraftTestSupport
import Testing

/// The documentation, held to the code: the error-code table lists every code
/// and no other, the README stays a landing page, and every relative link in
/// the Markdown the repository ships names a file (and heading) that exists.
@Suite("Docs")
struct DocsTests {
    static let errorsArticle = "Sources/GraftHost/Documentation.docc/Errors.md"

    static func text(_ path: String) throws -> String {
        try String(contentsOf: Fixtures.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("every GraftError code is in the Errors article's first table, and the table has no other")
    func graftErrorCodes() throws {
        let table = try ErrorTable(Self.text(Self.errorsArticle))
        let documented = try #require(table.codes(under: "Graft's codes"), "Errors.md has no '## Graft's codes' table")
        let defined = Set(GraftError.Code.allCases.map(\.rawValue))
        let missing = defined.subtracting(documented).sorted()
        let extra = documented.subtracting(defined).sorted()
        #expect(missing.isEmpty, "codes in GraftError.Code but not in \(Self.errorsArticle): \(missing.joined(separator: ", "))")
        #expect(extra.isEmpty, "codes in \(Self.errorsArticle) that GraftError.Code does not define: \(extra.joined(separator: ", "))")
    }

    @Test("Security.md's grants in Swift are the ones this test compiles, and they grant what the article says")
    func grantsInSwift() throws {
        var configuration = GraftConfiguration(searchPath: .standard(explicit: ["plugins"]))
        configuration.sandbox.grants["com.acme.weather"] = [.connect(ports: [443])]
        configuration.sandbox.grants["com.acme.notes"] = [.dataFolder, .read(folder: "/srv/assets")]
        configuration.sandbox.grants["com.acme.sync"] = [.anyNetwork]
        configuration.sandbox.dataFolderLimits["com.acme.notes"] = 16 << 20  // bytes; SandboxSettings.dataFolderLimit for all
        let article = try Self.text("Sources/GraftHost/Documentation.docc/Security.md")
        for line in [
            #"configuration.sandbox.grants["com.acme.weather"] = [.connect(ports: [443])]"#,
            #"configuration.sandbox.grants["com.acme.notes"] = [.dataFolder, .read(folder: "/srv/assets")]"#,
            #"configuration.sandbox.grants["com.acme.sync"] = [.anyNetwork]"#,
            #"configuration.sandbox.dataFolderLimits["com.acme.notes"] = 16 << 20  // bytes; SandboxSettings.dataFolderLimit for all"#,
        ] {
            #expect(article.contains(line), "Security.md no longer shows: \(line)")
        }
        // The permission texts of the article's table, for the same grants.
        #expect(configuration.sandbox.grants["com.acme.weather"]?.map(\.description) == ["network:443"])
        #expect(configuration.sandbox.grants["com.acme.notes"]?.map(\.description).sorted() == ["data", "read:/srv/assets"])
        #expect(configuration.sandbox.grants["com.acme.sync"]?.map(\.description) == ["network:any"])
    }

    @Test("every code of the command line's own is in the Errors article's table of them, and the table has no other")
    func commandLineCodes() throws {
        let table = try ErrorTable(Self.text(Self.errorsArticle))
        let documented = try #require(table.codes(under: "The command line's codes"), "Errors.md has no '## The command line's codes' table")
        // GraftHostTests cannot import GraftCommandLine: the cases are read from its source.
        let source = try String(contentsOf: Fixtures.root.appendingPathComponent("Sources/GraftCommandLine/Output.swift"), encoding: .utf8)
        let enumBody = try #require(source.firstRange(of: "package enum Code: String").map { source[$0.upperBound...] })
        let defined = Set(enumBody.prefix { $0 != "}" }.matches(of: #/case [a-zA-Z0-9]+ = "([a-z][a-z0-9_]*)"/#).map { String($0.1) })
        #expect(!defined.isEmpty, "found no CommandLineError.Code cases")
        #expect(defined == documented, "defined \(defined.sorted()), documented \(documented.sorted())")
    }

    @Test("every code the workbench answers with is in the Errors article's second table, and the table has no other")
    func workbenchCodes() throws {
        let table = try ErrorTable(Self.text(Self.errorsArticle))
        let documented = try #require(table.codes(under: "The workbench's codes"), "Errors.md has no '## The workbench's codes' table")
        let defined = try Self.workbenchCodes()
        #expect(!defined.isEmpty, "found no WorkbenchError(.code, …) in Sources/GraftWorkbench or Sources/graft-workbench")
        let missing = defined.subtracting(documented).sorted()
        let extra = documented.subtracting(defined).sorted()
        #expect(missing.isEmpty, "workbench codes not in \(Self.errorsArticle): \(missing.joined(separator: ", "))")
        #expect(extra.isEmpty, "codes in \(Self.errorsArticle)'s workbench table that the workbench never answers with: \(extra.joined(separator: ", "))")
    }

    /// The workbench's own codes are the cases of `WorkbenchError.Code`, each counted only when some source
    /// answers with it (`WorkbenchError(.tokenRequired, …)`): GraftHostTests cannot import GraftWorkbench, so
    /// both are read from its sources. The codes it forwards from the host are in the first table.
    static func workbenchCodes() throws -> Set<String> {
        let declaration = #/case ([a-z][A-Za-z0-9]*) = "([a-z][a-z0-9_]*)"/#
        let errors = Fixtures.root.appendingPathComponent("Sources/GraftWorkbench/Errors/WorkbenchError.swift")
        let cases = try String(contentsOf: errors, encoding: .utf8).matches(of: declaration).map { (name: String($0.1), code: String($0.2)) }
        var sources = ""
        for folder in ["Sources/GraftWorkbench", "Sources/graft-workbench"] {
            for file in swiftFiles(under: Fixtures.root.appendingPathComponent(folder)) {
                sources += try String(contentsOf: file, encoding: .utf8)
            }
        }
        return Set(cases.filter { sources.contains(".\($0.name), status:") }.map(\.code))
    }

    static func swiftFiles(under folder: URL) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walker?.allObjects ?? []).compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test("no file of the runner and its children (Sources/GraftHost/Isolation) is over 300 lines")
    func isolationFilesAreSmall() throws {
        let folder = Fixtures.root.appendingPathComponent("Sources/GraftHost/Isolation")
        let long = try Self.swiftFiles(under: folder).compactMap { file -> String? in
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            return lines > 300 ? "\(file.lastPathComponent) (\(lines))" : nil
        }
        #expect(!Self.swiftFiles(under: folder).isEmpty)
        #expect(long.isEmpty, "over 300 lines: \(long.sorted().joined(separator: ", "))")
    }

    @Test("the README is a landing page: under 200 lines, none over 200 characters")
    func readmeIsShort() throws {
        let lines = try Self.text("README.md").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count < 200, "README.md has \(lines.count) lines; the reference belongs in the DocC catalogs and docs/")
        let long = lines.enumerated().filter { $0.element.count > 200 }.map { "line \($0.offset + 1) (\($0.element.count))" }
        #expect(long.isEmpty, "README.md lines over 200 characters: \(long.joined(separator: ", "))")
    }

    @Test("the README links to the tutorial, the catalogs' landing pages, the error table and the performance page")
    func readmeLinksTheDoors() throws {
        let targets = Set(MarkdownFile(path: "README.md", text: try Self.text("README.md")).links.map(\.file))
        for door in [
            "docs/FirstPlugin.md", "docs/Performance.md", "CHANGELOG.md", Self.errorsArticle,
            "Sources/GraftHost/Documentation.docc/GraftHost.md", "Sources/GraftKit/Documentation.docc/GraftKit.md",
            "Sources/GraftHost/Documentation.docc/CommandLine.md",
        ] {
            #expect(targets.contains(door), "README.md does not link to \(door)")
        }
    }

    /// README.md, CHANGELOG.md, docs/*.md and every DocC catalog's articles.
    static func shippedMarkdown() throws -> [MarkdownFile] {
        var paths = ["README.md", "CHANGELOG.md"]
        let root = Fixtures.root
        paths += try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        for module in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path) {
            let catalog = "Sources/\(module)/Documentation.docc"
            guard let articles = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path) else { continue }
            paths += articles.filter { $0.hasSuffix(".md") }.map { "\(catalog)/\($0)" }
        }
        return try paths.sorted().map { MarkdownFile(path: $0, text: try text($0)) }
    }

    @Test("every relative link in the shipped Markdown names a file that exists, and a heading in it when it names one")
    func relativeLinksResolve() throws {
        var broken: [String] = []
        for file in try Self.shippedMarkdown() {
            for link in file.links {
                let target = Fixtures.root.appendingPathComponent(link.file)
                guard FileManager.default.fileExists(atPath: target.path) else {
                    broken.append("\(file.path): \(link.written) (no \(link.file))")
                    continue
                }
                guard let anchor = link.anchor, link.file.hasSuffix(".md") else { continue }
                let headings = MarkdownFile(path: link.file, text: try Self.text(link.file)).anchors
                if !headings.contains(anchor) {
                    broken.append("\(file.path): \(link.written) (no heading '#\(anchor)' in \(link.file))")
                }
            }
        }
        var seen = Set<String>()
        broken = broken.filter { seen.insert($0).inserted }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    @Test("every <doc:Article> link in a catalog names an article of that catalog")
    func docLinksResolve() throws {
        var broken: [String] = []
        for file in try Self.shippedMarkdown() where file.path.contains(".docc/") {
            let catalog = MarkdownFile.folder(of: file.path)
            for article in file.docLinks {
                let target = Fixtures.root.appendingPathComponent("\(catalog)/\(article).md")
                if !FileManager.default.fileExists(atPath: target.path) {
                    broken.append("\(file.path): <doc:\(article)>")
                }
            }
        }
        #expect(broken.isEmpty, "<doc:> links to no article of their catalog:\n\(broken.joined(separator: "\n"))")
    }

    @Test("the link checker reads Markdown as GitHub does")
    func linkCheckerReadsMarkdown() {
        let file = MarkdownFile(path: "docs/Example.md", text: """
            # Pinning (`graft.lock`)
            ## The workbench's codes
            See [errors](../Sources/GraftHost/Documentation.docc/Errors.md#the-workbenchs-codes), [here](#pinning-graftlock),
            [the site](https://example.com) and `[not](a-link.md)`.
            ```sh
            # not a heading; [not](a-link.md) either
            ```
            """)
        #expect(file.anchors == ["pinning-graftlock", "the-workbenchs-codes"])
        #expect(file.links.map(\.file) == ["Sources/GraftHost/Documentation.docc/Errors.md", "docs/Example.md"])
        #expect(file.links.map(\.anchor) == ["the-workbenchs-codes", "pinning-graftlock"])
    }
}

/// The codes in the first column of each table of the Errors article, by the
/// `## ` heading the table sits under. A cell may name several codes
/// (`` `duplicate_validator`, `duplicate_action` ``).
struct ErrorTable {
    private var sections: [String: Set<String>] = [:]

    init(_ text: String) {
        var heading = ""
        let code = #/`([a-z][a-z0-9_]*)`/#
        for line in text.split(separator: "\n") {
            if line.hasPrefix("## ") {
                heading = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard line.hasPrefix("|"), cells.count > 2 else { continue }
            for match in cells[1].matches(of: code) {
                sections[heading, default: []].insert(String(match.1))
            }
        }
    }

    func codes(under heading: String) -> Set<String>? { sections[heading] }
}

/// A Markdown file as GitHub renders it: its headings' anchors and its
/// relative links (outside code), resolved against the repository's root.
struct MarkdownFile {
    struct Link {
        var written: String
        /// The target's path from the repository's root (the file itself for `#anchor`).
        var file: String
        var anchor: String?
    }

    let path: String
    /// The lines outside fenced code blocks.
    private let outsideFences: [String]

    init(path: String, text: String) {
        self.path = path
        var lines: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
            } else if !fenced {
                lines.append(String(line))
            }
        }
        outsideFences = lines
    }

    /// The folder a path is in, "" at the root.
    static func folder(of path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }

    /// GitHub's anchors: the heading's text (code spans' too) lowercased, punctuation dropped, spaces as hyphens.
    var anchors: [String] {
        outsideFences.compactMap { line in
            guard let match = line.wholeMatch(of: #/#{1,6} (.*)/#) else { return nil }
            return Self.anchor(String(match.1))
        }
    }

    static func anchor(_ heading: String) -> String {
        let kept = heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
        return kept.replacingOccurrences(of: " ", with: "-")
    }

    /// Prose: outside fenced blocks, without inline code spans.
    private var prose: [String] {
        outsideFences.map { $0.replacing(#/`[^`]*`/#, with: "") }
    }

    var links: [Link] {
        let folder = Self.folder(of: path)
        return prose.flatMap { line in
            line.matches(of: #/\]\(([^)\s]+)\)/#).compactMap { match -> Link? in
                let written = String(match.1)
                if written.contains("://") || written.hasPrefix("mailto:") { return nil }
                let parts = written.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = parts[0].isEmpty ? path : Self.normalize(folder.isEmpty ? String(parts[0]) : "\(folder)/\(parts[0])")
                return Link(written: written, file: file, anchor: parts.count > 1 ? String(parts[1]) : nil)
            }
        }
    }

    /// The article names of `<doc:Name>` and `<doc:Name#heading>` links.
    var docLinks: [String] {
        prose.flatMap { line in line.matches(of: #/<doc:([A-Za-z0-9_-]+)(#[^>]*)?>/#).map { String($0.1) } }
    }

    /// `a/b/../c` as `a/c`.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }
}
