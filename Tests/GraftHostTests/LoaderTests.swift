import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Every fixture under Tests/Fixtures/plugins declares the code the host must
/// give it; each one is compiled with `cc`, loaded alone, and checked.
@Suite("Loading fixture plugins")
struct LoaderTests {
    static let refused = allFixtureNames().filter { (try? expectedCode(ofFixture: $0)) != "ok" && $0 != "dup_b" }

    @Test("a broken plugin is refused with its code", arguments: refused)
    func refusedWithCode(fixture: String) throws {
        let scratch = try Scratch()
        let library = try Fixtures.build(fixture, into: scratch.url)
        let host = inProcessHost(scratch.url)
        let expected = try expectedCode(ofFixture: fixture)
        let error = #expect(throws: GraftError.self) { try host.load(pluginAt: library.path) }
        #expect(error?.code.rawValue == expected, "\(fixture): \(error?.description ?? "no error")")
        #expect(error?.message.contains(library.path) == true, "the message names the file")
        #expect(host.failures.map(\.path) == [library.path])
        #expect(host.plugins.isEmpty)
        #expect(host.registry.all.isEmpty, "a refused plugin registers nothing")
    }

    @Test("a bad plugin never stops the others from loading")
    func badPluginsDoNotStopGoodOnes() throws {
        let scratch = try Scratch()
        for name in allFixtureNames() { try Fixtures.build(name, into: scratch.url) }
        try Data("not a plugin".utf8).write(to: scratch.file("libtext.so"))
        let host = inProcessHost(scratch.url)
        host.loadPlugins()

        #expect(Set(host.plugins.map(\.id)).isSuperset(of: ["test.echo", "test.empty", "test.two-versions", "test.dup-a"]))
        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo")
        let failures = Dictionary(uniqueKeysWithValues: host.failures.map { ($0.path, $0.error.code.rawValue) })
        for name in allFixtureNames() where name != "dup_a" && name != "dup_b" {
            let path = scratch.file("lib\(name).so").path
            let expected = try expectedCode(ofFixture: name)
            #expect(failures[path] == (expected == "ok" ? nil : expected), "\(name)")
        }
        #expect(failures[scratch.file("libtext.so").path] == "not_a_shared_library")
    }

    @Test("the same key+version in two plugins: both load, the first answers the bare name, the clash names both files")
    func duplicateAcrossPlugins() throws {
        let scratch = try Scratch()
        let a = try Fixtures.build("dup_a", into: scratch.url)
        let b = try Fixtures.build("dup_b", into: scratch.url)
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: a.path)
        try host.load(pluginAt: b.path)
        #expect(host.plugins.map(\.id) == ["test.dup-a", "test.dup-b"])
        #expect(try host.resolve(ComponentReference(key: "dup_widget")).pluginID == "test.dup-a")
        #expect(try host.resolve(ComponentReference(parsing: "test.dup-b/dup_widget")).pluginID == "test.dup-b")
        let clash = try #require(host.failures.first { $0.path == b.path }?.error)
        #expect(clash.code == .duplicateComponent)
        #expect(clash.key == "dup_widget")
        #expect(clash.message.contains(a.path) && clash.message.contains(b.path) && clash.message.contains("test.dup-b/dup_widget@1"))
    }

    @Test("a clash reads the same whether the plugins were scanned or came from the registry cache")
    func duplicateWordingIsOne() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let a = try Fixtures.build("dup_a", into: folder)
        let b = try Fixtures.build("dup_b", into: folder)
        func failure() -> GraftError? {
            let host = GraftHost(
                configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path),
                logger: quietLogger)
            host.loadPlugins()
            #expect(host.plugins.map(\.id) == ["test.dup-a", "test.dup-b"])
            return host.failures.first { $0.path == b.path }?.error
        }
        let scanned = try #require(failure())
        let cached = try #require(failure())
        #expect(scanned.code == .duplicateComponent)
        #expect(cached.message == scanned.message)
        #expect(scanned.message.contains(a.path) && scanned.message.contains(b.path) && scanned.message.contains("plugin 'test.dup-a'"))
    }

    @Test("init returning false refuses the plugin and deinit is not called; one whose init succeeded gets it")
    func initFalse() throws {
        let scratch = try Scratch()
        // The positive control first: the marker works, and deinit runs once the host lets the plugin go.
        let succeeded = scratch.file("deinit-after-success")
        let control = try Fixtures.build(
            "bad_init_false", into: scratch.url.appendingPathComponent("control"),
            defines: ["INIT_RESULT": "true", "MARKER_PATH": "\"\(succeeded.path)\""])
        do {
            let host = inProcessHost(scratch.url.appendingPathComponent("control"))
            try host.load(pluginAt: control.path)
            #expect(!FileManager.default.fileExists(atPath: succeeded.path), "not while the host holds it")
        }
        #expect(FileManager.default.fileExists(atPath: succeeded.path), "deinit ran when the host let the plugin go")

        let failed = scratch.file("deinit-after-failure")
        let library = try Fixtures.build(
            "bad_init_false", into: scratch.url.appendingPathComponent("fault"), defines: ["MARKER_PATH": "\"\(failed.path)\""])
        let error = #expect(throws: GraftError.self) { try inProcessHost(scratch.url.appendingPathComponent("fault")).load(pluginAt: library.path) }
        #expect(error?.code == .pluginInitFailed)
        #expect(!FileManager.default.fileExists(atPath: failed.path))
    }

    @Test("files that are not plugins")
    func notPlugins() throws {
        let scratch = try Scratch()
        let good = try Fixtures.build("good_echo", into: scratch.url)
        let bytes = try Data(contentsOf: good)

        let text = scratch.file("libtext.so")
        try Data("#!/bin/sh\necho hi\n".utf8).write(to: text)
        let empty = scratch.file("libempty.so")
        try Data().write(to: empty)
        let truncated = scratch.file("libtruncated.so")
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let unreadable = scratch.file("libunreadable.so")
        try bytes.write(to: unreadable)
        chmod(unreadable.path, 0)

        let host = inProcessHost(scratch.url)
        for (file, code) in [
            (text, GraftError.Code.notASharedLibrary), (empty, .notASharedLibrary), (truncated, .notASharedLibrary),
            (unreadable, .permissionDenied), (scratch.file("libmissing.so"), .pluginNotFound),
        ] {
            let error = #expect(throws: GraftError.self) { try host.load(pluginAt: file.path) }
            #expect(error?.code == code, "\(file.lastPathComponent): \(error?.description ?? "")")
            #expect(error?.message.contains(file.path) == true)
        }
        // The host is still fine: the good plugin loads after all of that.
        #expect(try host.load(pluginAt: good.path).id == "test.echo")
    }

    @Test("graft check reports every problem of a plugin at once")
    func checkCollectsEveryProblem() throws {
        let scratch = try Scratch()
        let library = try Fixtures.build("bad_debug_type", into: scratch.url)
        let check = GraftHost.check(pluginAt: library.path)
        #expect(!check.isClean)
        #expect(check.problems.allSatisfy { $0.code == .invalidDescriptor })

        let clean = GraftHost.check(pluginAt: try Fixtures.build("good_echo", into: scratch.url).path)
        #expect(clean.isClean)
        #expect(clean.plugin?.components.map(\.key) == ["echo"])
        #expect(clean.plugin?.canUnload == true, "a plugin built with plain cc contains no Swift")
    }

    @Test("a plugin's line through host->log reaches the host's logger at its level, tagged with the plugin's file")
    func pluginLogReachesTheHostLogger() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("good_echo", into: scratch.url, defines: ["ECHO_LOGS_IN_INIT": "1"])
        let log = CapturedLog()
        let host = GraftHost(configuration: TestConfigurations.plain, logger: log.logger)
        try host.load(pluginAt: plugin.path)
        let lines = log.all.filter { $0.message == "echo starting" }
        #expect(lines.count == 1)
        #expect(lines.first?.level == .warning)
        #expect(lines.first?.metadata["plugin"] == plugin.path)
    }

    @Test("loading the same file twice returns the loaded plugin")
    func loadTwice() throws {
        let scratch = try Scratch()
        let library = try Fixtures.build("good_echo", into: scratch.url)
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: library.path)
        try host.load(pluginAt: library.path)
        #expect(host.plugins.count == 1)
    }
}
