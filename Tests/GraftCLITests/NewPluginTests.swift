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

    @Test("graft new c: make test passes (its own test, then graft check), graft try taps, only graft_entry exported")
    func cPlugin() throws {
        let scratch = try Scratch()
        let created = try Self.shell("graft new c tap_counter", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("tap_counter")
        let tested = try Self.shell("make test", in: project)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        #expect(tested.stdout.contains("ok: build/libtap_counter.so"))
        #expect(tested.stdout.contains("build/libtap_counter.so: ok — com.example.tap-counter 0.1.0"))
        let tried = try Self.shell("graft try tap_counter --plugin-path build --interact tap --json", in: project, timeout: .seconds(60))
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains("\"tapped\""))
        #expect(tried.stdout.contains("Taps: 1"))
        let validated = try Self.shell("graft validate tap_counter_max_length hello 3 --plugin-path build", in: project, timeout: .seconds(60))
        #expect(validated.status == 1)
        #expect(validated.stdout.contains("at most 3 characters"))
        #expect(try Self.exportedSymbols(project.appendingPathComponent("build/libtap_counter.so")) == ["graft_entry"])
    }

    @Test("graft new swift: swift build && swift test pass, graft check passes, only graft_entry exported")
    func swiftPlugin() throws {
        let scratch = try Scratch()
        let created = try Self.shell("graft new swift tap_counter --output tapper", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("tapper")
        let package = try String(contentsOf: project.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(".package(name: \"Graft\", path: \"\(Fixtures.root.path)\")"))
        // Its own build folder, inside the scratch folder; the package's dependencies come from the same mirror.
        let built = try Self.shell("swift build && swift test", in: project, timeout: .seconds(540))
        #expect(built.status == 0, "\(built.stdout.suffix(3000))\(built.stderr.suffix(3000))")
        let library = project.appendingPathComponent(".build/debug/libTapCounter.so")
        let checked = try Self.shell("graft check .build/debug/libTapCounter.so", in: project, timeout: .seconds(60))
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("ok — com.example.tap-counter 0.1.0"))
        let tried = try Self.shell("graft try tap_counter --plugin-path .build/debug/libTapCounter.so --interact tap", in: project, timeout: .seconds(60))
        #expect(tried.stdout.contains("Taps: 1"), "\(tried.stderr)")
        #expect(try Self.exportedSymbols(library) == ["graft_entry"])
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
