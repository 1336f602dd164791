import Foundation
import GraftTestSupport
import Testing

/// `graft new` as a plugin author meets it: the generated project builds with
/// its one command, its own test passes, `graft check` passes, and the
/// component answers `graft try --interact tap`. Every plugin library, the
/// generated Swift one and the first-party ones, exports `graft_entry` alone.
@Suite(.timeLimit(.minutes(10)))
struct NewPluginTests {
    /// PATH with the built graft first: the generated Makefile then finds
    /// graft.h through `graft sdk --cflags` and `make test` runs `graft check`.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = BuildProducts.folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PKG_CONFIG_PATH"] = "/nonexistent"  // never an installed graft.pc from elsewhere
        return environment
    }

    static func shell(_ script: String, in folder: URL, timeout: Duration = .seconds(300)) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(folder.path)' && \(script)"], environment: environment, timeout: timeout)
    }

    /// The names of the global functions and objects `library` exports.
    static func exportedSymbols(_ library: URL) throws -> [String] {
        let listed = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["nm", "-D", "--defined-only", library.path], timeout: .seconds(60))
        return listed.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1].count == 1, fields[1].first!.isUppercase else { return nil }
            // The linker's own markers (_end, __bss_start…) are not the plugin's.
            return ["_edata", "_end", "__bss_start"].contains(String(fields[2])) ? nil : String(fields[2])
        }
    }

    /// Files under `project` that still hold a template's `{{name}}` mark.
    static func unfilledMarks(in project: URL) -> [String] {
        let files = FileManager.default.enumerator(atPath: project.path)?.compactMap { $0 as? String } ?? []
        return files.filter { file in
            (try? String(contentsOf: project.appendingPathComponent(file), encoding: .utf8))?.contains("{{") == true
        }
    }

    @Test("graft new c: make test passes (its own test, then graft check), graft try taps, only graft_entry exported")
    func cPlugin() throws {
        let scratch = try Scratch()
        let created = try Self.shell("graft new c tap_counter", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("tap_counter")
        #expect(Self.unfilledMarks(in: project).isEmpty, "every {{name}} of the templates filled")
        let tested = try Self.shell("make test", in: project)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("ok: build/libtap_counter.so"))
        #expect(tested.stdout.contains("build/libtap_counter.so: 13 conformance tests"))
        #expect(!tested.stdout.contains("FAIL"))
        let tried = try Self.shell("graft try tap_counter --plugin-path build --interact tap --json", in: project, timeout: .seconds(60))
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains("\"tapped\""))
        #expect(tried.stdout.contains("Taps: 1"))
        let validated = try Self.shell("graft validate tap_counter_max_length hello 3 --plugin-path build", in: project, timeout: .seconds(60))
        #expect(validated.status == 1)
        #expect(validated.stdout.contains("at most 3 characters"))
        #expect(try Self.exportedSymbols(project.appendingPathComponent("build/libtap_counter.so")) == ["graft_entry"])
    }

    @Test("graft new c --wasm: make test builds and tests the .so and the .wasm from one source, and both answer alike")
    func cPluginAsWebAssembly() throws {
        let scratch = try Scratch()
        let created = try Self.shell("graft new c tap_counter --wasm", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("tap_counter")
        #expect(Self.unfilledMarks(in: project).isEmpty, "every {{name}} of the templates filled")
        let tested = try Self.shell("make test", in: project)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("build/tap_counter.wasm").path))
        var answers: [String] = []
        for plugin in ["build/libtap_counter.so", "build/tap_counter.wasm"] {
            let tried = try Self.shell("graft try tap_counter --only-plugin-path --plugin-path \(plugin) --interact tap", in: project, timeout: .seconds(60))
            #expect(tried.status == 0, "\(plugin): \(tried.stderr)")
            #expect(tried.stdout.contains("Taps: 1"), "\(plugin): \(tried.stdout)")
            let validated = try Self.shell("graft validate tap_counter_max_length hello 3 --only-plugin-path --plugin-path \(plugin)", in: project, timeout: .seconds(60))
            #expect(validated.status == 1)
            answers.append(tried.stdout.split(separator: "\n").dropFirst().joined(separator: "\n") + validated.stdout.split(separator: "\n").dropFirst().joined(separator: "\n"))
        }
        #expect(answers.first == answers.last, "the .so and the .wasm render and validate alike")
        let swift = try Self.shell("graft new swift nope --wasm", in: scratch.url)
        #expect(swift.status != 0 && swift.stderr.contains("--wasm is for C projects"), "\(swift.stderr)")
    }

    @Test("graft new swift: swift build && swift test pass, graft check passes, only graft_entry exported; runs beside a plugin built on another GraftKit")
    func swiftPlugin() throws {
        let scratch = try Scratch()
        let created = try Self.shell("graft new swift tap_counter --output tapper", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("tapper")
        #expect(Self.unfilledMarks(in: project).isEmpty, "every {{name}} of the templates filled")
        let package = try String(contentsOf: project.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(".package(path: \"GraftKit\")"))
        // The project holds Graft's Swift SDK, the same files as Graft's own GraftKit, and nothing names this checkout.
        #expect(try Self.sdkFiles(in: project.appendingPathComponent("GraftKit")) == Self.sdkFiles(in: Fixtures.root))
        #expect(Self.files(in: project, containing: Fixtures.root.path).isEmpty)
        let built = try Self.shell("swift build && swift test", in: project, timeout: .seconds(540))
        #expect(built.status == 0, "\(built.stdout.suffix(3000))\(built.stderr.suffix(3000))")
        #expect(Self.checkouts(of: project).isEmpty, "a plugin on the SDK copy resolves no package")
        let library = project.appendingPathComponent(".build/debug/libTapCounter.so")
        let checked = try Self.shell("graft check --conformance --strict .build/debug/libTapCounter.so", in: project, timeout: .seconds(300))
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("13 conformance tests"))
        let tried = try Self.shell("graft try tap_counter --plugin-path .build/debug/libTapCounter.so --interact tap", in: project, timeout: .seconds(60))
        #expect(tried.stdout.contains("Taps: 1"), "\(tried.stderr)")
        #expect(try Self.exportedSymbols(library) == ["graft_entry"])

        // Side by side with a plugin built against another GraftKit: a copy whose `Rendering` has another
        // layout (a field before `text`). Each plugin must use its own copy, in the same process.
        let otherKit = scratch.file("graftkit-2")
        let copied = try Self.shell("graft sdk --swift-package graftkit-2", in: scratch.url, timeout: .seconds(60))
        #expect(copied.status == 0, "\(copied.stderr)")
        let rendering = otherKit.appendingPathComponent("Sources/GraftTypes/Rendering.swift")
        let original = try String(contentsOf: rendering, encoding: .utf8)
        #expect(original.contains("public struct Rendering: Sendable, Hashable {\n"))
        try original.replacingOccurrences(
            of: "public struct Rendering: Sendable, Hashable {\n",
            with: "public struct Rendering: Sendable, Hashable {\n    public var revision: (major: Int, minor: Int, patch: Int) = (2, 0, 0)\n    public static func == (a: Self, b: Self) -> Bool { a.text == b.text && a.mediaType == b.mediaType }\n    public func hash(into hasher: inout Hasher) { hasher.combine(text) }\n"
        ).write(to: rendering, atomically: true, encoding: .utf8)
        let other = try Self.shell("graft new swift other_counter --output other --graft '\(otherKit.path)' && cd other && swift build", in: scratch.url, timeout: .seconds(540))
        #expect(other.status == 0, "\(other.stdout.suffix(3000))\(other.stderr.suffix(3000))")
        try #"""
            {"name": "Side by side", "size": {"width": 40, "height": 0},
             "components": [
               {"key": "tap_counter", "inputs": {"title": "string", "count": "number"}, "outputs": {"tapped": {"payload": {"count": "number"}}}},
               {"key": "other_counter", "inputs": {"title": "string", "count": "number"}, "outputs": {"tapped": {"payload": {"count": "number"}}}}],
             "variables": {},
             "screens": [{"id": "both", "instances": [
               {"id": "mine", "component": "tap_counter", "inputs": {"title": "Mine", "count": 1}},
               {"id": "theirs", "component": "other_counter", "inputs": {"title": "Theirs", "count": 10}}]}]}
            """#.write(to: scratch.file("both.json"), atomically: true, encoding: .utf8)
        try #"""
            {"instance": "mine", "interact": "tap"}
            {"instance": "theirs", "interact": "tap"}
            """#.write(to: scratch.file("both.events.jsonl"), atomically: true, encoding: .utf8)
        let both = try Self.shell(
            "XDG_CACHE_HOME='\(scratch.file("cache").path)' graft run both.json --events both.events.jsonl --in-process --no-scanner --only-plugin-path --plugin-path tapper/.build/debug/libTapCounter.so --plugin-path other/.build/debug/libOtherCounter.so",
            in: scratch.url, timeout: .seconds(60))
        #expect(both.status == 0, "\(both.stdout)\(both.stderr)")
        for line in ["Mine: 1", "Theirs: 10", #"mine.tapped {"count":2}"#, #"theirs.tapped {"count":11}"#] {
            #expect(both.stdout.contains(line), "\(line) is missing from: \(both.stdout)")
        }
    }

    @Test("graft new swift --graft URL: the resolve fetches Graft alone, and the plugin builds after that clone is gone")
    func swiftPluginOnGraftByURL() throws {
        let scratch = try Scratch()
        // A release of Graft as a plugin author would name it: a git repository with the version's tag.
        let version = try Self.shell("graft --version", in: scratch.url, timeout: .seconds(60)).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let release = scratch.file("graft-release")
        let tagged = try Self.shell(
            "git clone -q --no-local '\(Fixtures.root.path)' graft-release && git -C graft-release tag '\(version)'", in: scratch.url, timeout: .seconds(120))
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let created = try Self.shell("graft new swift by_url --graft 'file://\(release.path)'", in: scratch.url, timeout: .seconds(60))
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("by_url")
        #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("GraftKit").path))
        let package = try String(contentsOf: project.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(".package(url: \"file://\(release.path)\", from: \"\(version)\", traits: [])"))
        let resolved = try Self.shell("swift package resolve", in: project, timeout: .seconds(300))
        #expect(resolved.status == 0, "\(resolved.stdout)\(resolved.stderr)")
        #expect(Self.checkouts(of: project) == ["graft-release"], "Graft's tools' packages stay out of a plugin's resolve")
        try FileManager.default.removeItem(at: release)
        let built = try Self.shell("swift build", in: project, timeout: .seconds(540))
        #expect(built.status == 0, "\(built.stdout.suffix(3000))\(built.stderr.suffix(3000))")
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent(".build/debug/libByUrl.so").path))
    }

    @Test("graft sdk --swift-package writes the SDK, refreshes a copy whole, and writes over nothing else")
    func swiftSDKFolder() throws {
        let scratch = try Scratch()
        let written = try Self.shell("graft sdk --swift-package kit", in: scratch.url, timeout: .seconds(60))
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try Self.sdkFiles(in: scratch.file("kit")) == Self.sdkFiles(in: Fixtures.root))
        let stale = scratch.file("kit/Sources/GraftKit/Dropped.swift")
        try Data("// from an older SDK".utf8).write(to: stale)
        let refreshed = try Self.shell("graft sdk --swift-package kit", in: scratch.url, timeout: .seconds(60))
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale.path), "a refresh replaces the sources whole")
        try FileManager.default.createDirectory(at: scratch.file("mine"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: scratch.file("mine/Package.swift"))
        let refused = try Self.shell("graft sdk --swift-package mine", in: scratch.url, timeout: .seconds(60))
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("project_exists") && refused.stderr.contains("no copy of Graft's Swift SDK"), "\(refused.stderr)")
        #expect(try String(contentsOf: scratch.file("mine/Package.swift"), encoding: .utf8) == "mine")
    }

    /// The SDK's files under `root` (a copy, or Graft's own tree) and their bytes, by path.
    static func sdkFiles(in root: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for module in ["CGraft", "GraftTypes", "GraftKit"] {
            let folder = root.appendingPathComponent("Sources/\(module)")
            for path in FileManager.default.enumerator(atPath: folder.path)?.compactMap({ $0 as? String }) ?? []
            where [".swift", ".h", ".c"].contains(where: path.hasSuffix) && !path.contains(".docc/") {
                files["\(module)/\(path)"] = try Data(contentsOf: folder.appendingPathComponent(path))
            }
        }
        return files
    }

    /// Files under `folder`, outside `.build`, whose text contains `text`.
    static func files(in folder: URL, containing text: String) -> [String] {
        let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { path in
            !path.hasPrefix(".build") && (try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8))?.contains(text) == true
        }
    }

    /// The packages SwiftPM checked out for `project`.
    static func checkouts(of project: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: project.appendingPathComponent(".build/checkouts").path)) ?? []).sorted()
    }

    @Test("the first-party plugins export graft_entry alone")
    func firstPartyExports() throws {
        for name in ["DatePicker", "Checkout"] {
            #expect(try Self.exportedSymbols(BuildProducts.plugin(name)) == ["graft_entry"], "lib\(name).so")
        }
    }

    @Test("graft new refuses a bad name, a folder that is not empty and a Graft package that is not there")
    func refusals() throws {
        let scratch = try Scratch()
        let badName = try Self.shell("graft new c Bad-Name", in: scratch.url, timeout: .seconds(60))
        #expect(badName.status == 2)
        #expect(badName.stderr.contains("should start with a lowercase letter"))
        try FileManager.default.createDirectory(at: scratch.file("taken"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: scratch.file("taken/notes.txt"))
        let taken = try Self.shell("graft new c taken", in: scratch.url, timeout: .seconds(60))
        #expect(taken.status == 2)
        #expect(taken.stderr.contains("project_exists"))
        #expect(try String(contentsOf: scratch.file("taken/notes.txt"), encoding: .utf8) == "mine")
        let nowhere = try Self.shell("graft new swift lost --graft \(scratch.file("nowhere").path)", in: scratch.url, timeout: .seconds(60))
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.contains("graft_package_not_found"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("lost/Package.swift").path))
    }
}
