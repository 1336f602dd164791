import Foundation
import GraftTestSupport
import Testing

/// docs/FirstPlugin.md, run as written: every `sh` block that the page follows
/// with output is run in order (in a scratch folder, with the built `graft`
/// first on PATH), and what it prints, stdout and stderr together, is compared
/// with every output block the page shows after it. The install block of step 0
/// shows no output and is not run: the built `graft` stands in for the
/// installed one.
///
/// What may differ, and is made the same on both sides before comparing:
/// - the include flag: the page's `-I/usr/local/include/graft` (its prefix) is
///   what `graft sdk --cflags` prints here, and `cc` lines may differ in runs
///   of spaces (pkg-config's flags end in one);
/// - clocks and timings: `[11:25:51]`, `in 11.9 ms`, `(26.95s)`,
///   `after 0.001 seconds`, and SwiftPM's `[59/60]` step counts;
/// - `graft watch`'s list of watched folders after its first, `build` (the
///   others are where `graft` and the first-party plugins are installed);
/// - a line `…` in an output block stands for any lines.
@Suite("docs/FirstPlugin.md", .timeLimit(.minutes(15)))
struct FirstPluginTests {
    static let page = "docs/FirstPlugin.md"

    @Test("every output the page shows is what its commands print", arguments: FirstPluginTests.runnableSections)
    func section(_ heading: String) throws {
        let steps = try Self.steps(in: heading)
        #expect(steps.count >= 2, "\(Self.page): found \(steps.count) commands with output under '## \(heading)'")
        let scratch = try Scratch()
        var folder = scratch.url
        for step in steps {
            let output: [String]
            if step.command.hasPrefix("graft watch") {
                output = try Self.watch(step, in: folder, log: scratch.file("watch.out"))
            } else {
                let timeout: Duration = step.command.contains("swift build") ? .seconds(720) : .seconds(300)
                let result = try runCommand(
                    URL(fileURLWithPath: "/bin/sh"), ["-c", "exec 2>&1\ncd '\(folder.path)' || exit 97\n\(step.command)"],
                    environment: Self.environment(for: step.command, cache: scratch.file("cache")), timeout: timeout)
                output = Self.lines(result.stdout + result.stderr)
            }
            let expected = step.outputs.flatMap { $0 }
            let sdk = try Self.includeFlag()
            #expect(
                Self.matches(Self.normalized(output, includeFlag: sdk), Self.normalized(expected, includeFlag: sdk)),
                "\(Self.page): `\(step.command)` printed\n\(output.joined(separator: "\n"))\n--- the page shows ---\n\(expected.joined(separator: "\n"))")
            for line in step.command.split(separator: "\n") where line.hasPrefix("cd ") {
                folder = folder.appendingPathComponent(String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces))
            }
        }
    }

    /// The sections whose commands the test above runs; the others show no output.
    static let runnableSections = ["1. A plugin in C", "2. The same plugin in Swift"]

    @Test("every output block on the page follows a command the test runs")
    func everyOutputIsChecked() throws {
        let sections = try Self.sections()
        #expect(sections.map(\.0).filter(Self.runnableSections.contains) == Self.runnableSections)
        for (heading, blocks) in sections {
            var afterCommand = false
            for block in blocks {
                switch block.info {
                case "sh": afterCommand = true
                case "": #expect(afterCommand && Self.runnableSections.contains(heading), "\(Self.page), '## \(heading)': an output block the test does not compare")
                default:
                    afterCommand = false
                    Issue.record("\(Self.page), '## \(heading)': a ```\(block.info) block the test does not know how to check")
                }
            }
        }
    }

    // MARK: Reading the page

    struct Block {
        var info: String
        var lines: [String]
    }

    /// A command block and the output blocks that follow it.
    struct Step {
        var command: String
        var outputs: [[String]]
    }

    /// The fenced blocks under each `## ` heading.
    static func sections() throws -> [(String, [Block])] {
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent(page), encoding: .utf8)
        var sections: [(String, [Block])] = []
        var open: Block?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = open {
                    if !sections.isEmpty { sections[sections.count - 1].1.append(block) }
                    open = nil
                } else {
                    open = Block(info: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), lines: [])
                }
            } else if open != nil {
                open!.lines.append(line)
            } else if line.hasPrefix("## ") {
                sections.append((String(line.dropFirst(3)), []))
            }
        }
        return sections
    }

    static func steps(in heading: String) throws -> [Step] {
        let blocks = try #require(sections().first { $0.0 == heading }?.1, "\(page) has no '## \(heading)'")
        var steps: [Step] = []
        for block in blocks {
            if block.info == "sh" {
                steps.append(Step(command: block.lines.joined(separator: "\n"), outputs: []))
            } else if block.info.isEmpty, !steps.isEmpty {
                steps[steps.count - 1].outputs.append(block.lines)
            }
        }
        return steps.filter { !$0.outputs.isEmpty }
    }

    // MARK: Running it

    /// PATH with the built graft first; graft.h through `graft sdk --cflags`, never an installed graft.pc. The
    /// registry cache goes to the scratch folder, except for `swift build`, which keeps the machine's package caches.
    static func environment(for command: String, cache: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = BuildProducts.folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PKG_CONFIG_PATH"] = "/nonexistent"
        environment["GRAFT_PLUGIN_PATH"] = nil
        if !command.contains("swift build") { environment["XDG_CACHE_HOME"] = cache.path }
        return environment
    }

    /// What `graft sdk --cflags` prints here, for the page's `-I/usr/local/include/graft`.
    static func includeFlag() throws -> String {
        try graft("sdk", "--cflags").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The page's hot swap: `graft watch` in one terminal; in another the edit it names and `make`.
    static func watch(_ step: Step, in folder: URL, log: URL) throws -> [String] {
        let edit = (from: #"graft_write_cstr(w, ": ")"#, to: #"graft_write_cstr(w, " → ")"#)
        let prose = try String(contentsOf: Fixtures.root.appendingPathComponent(page), encoding: .utf8)
        try #require(prose.contains(#"(`": "` to `" → "`) and run `make`"#), "the page no longer asks for the edit this test makes")
        try #require(step.outputs.count == 2, "graft watch: the page shows its output before and after the swap")

        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 2>&1\ncd '\(folder.path)' || exit 97\nexec \(step.command)"]
        process.environment = environment(for: step.command, cache: log.deletingLastPathComponent().appendingPathComponent("cache"))
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        try waitFor("graft watch to start watching") { text().contains("Ctrl-C to stop") }
        let source = folder.appendingPathComponent("my_counter.c")
        let original = try String(contentsOf: source, encoding: .utf8)
        try #require(original.contains(edit.from), "my_counter.c has no \(edit.from) to change")
        try original.replacingOccurrences(of: edit.from, with: edit.to).write(to: source, atomically: false, encoding: .utf8)
        let made = try runCommand(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(folder.path)' && make"],
            environment: environment(for: "make", cache: log.deletingLastPathComponent().appendingPathComponent("cache")))
        try #require(made.status == 0, "make: \(made.stdout)\(made.stderr)")
        let last = try #require(step.outputs[1].last)
        try waitFor("the new build's render, '\(last)'") { lines(text()).last == last }
        process.interrupt()
        try waitFor("graft watch to exit on Ctrl-C") { !process.isRunning }
        return lines(text())
    }

    static func waitFor(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else { throw Fixtures.BuildError(description: "timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    // MARK: Comparing

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    static func normalized(_ lines: [String], includeFlag: String) -> [String] {
        lines.map { line in
            var line = line.replacingOccurrences(of: includeFlag, with: "-I/usr/local/include/graft")
            if line.hasPrefix("cc ") { line = line.replacing(#/ {2,}/#, with: " ") }
            line = line.replacing(#/^\[\d\d:\d\d:\d\d\]/#, with: "[hh:mm:ss]")
            line = line.replacing(#/ in \d+(\.\d+)? ms,/#, with: " in N ms,")
            line = line.replacing(#/watching build(, [^;]*)?;/#, with: "watching build, …;")
            line = line.replacing(#/^\[\d+/\d+\] /#, with: "[n/n] ")
            line = line.replacing(#/\(\d+(\.\d+)?s\)/#, with: "(Ns)")
            line = line.replacing(#/after \d+(\.\d+)? seconds/#, with: "after N seconds")
            return line
        }
    }

    /// `actual` is `expected`, where a line `…` in `expected` stands for any lines (none included).
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard expected.contains("…") else { return actual == expected }
        let segments = expected.split(separator: "…", omittingEmptySubsequences: false).map(Array.init)
        var from = 0
        for (index, segment) in segments.enumerated() {
            if segment.isEmpty { continue }
            let first = index == 0, last = index == segments.count - 1
            let starts = first ? [0] : Array(from...max(from, actual.count - segment.count))
            guard let at = starts.first(where: { start in
                start + segment.count <= actual.count && Array(actual[start..<start + segment.count]) == segment
                    && (!last || start + segment.count == actual.count)
            }) else { return false }
            from = at + segment.count
        }
        return true
    }

    @Test("the comparison: … stands for any lines, and only there")
    func elision() {
        #expect(Self.matches(["a", "x", "y", "b", "c"], ["a", "…", "b", "c"]))
        #expect(Self.matches(["x", "b", "y", "c"], ["…", "b", "…", "c"]))
        #expect(!Self.matches(["x", "b", "y", "c", "z"], ["…", "b", "…", "c"]))
        #expect(!Self.matches(["a", "b"], ["a", "c"]))
        #expect(Self.normalized(["[11:25:53] swapped x 0.1.0 → 0.1.0 in 11.9 ms, 1 instance recreated"], includeFlag: "-I/x")
            == ["[hh:mm:ss] swapped x 0.1.0 → 0.1.0 in N ms, 1 instance recreated"])
        #expect(Self.normalized(["[1:2] watching build, /a, /b; Ctrl-C to stop"], includeFlag: "-I/x") == ["[1:2] watching build, …; Ctrl-C to stop"])
    }
}
