import Dispatch
import Foundation
import GraftSupport
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

/// A plugin controls its child process completely, so the host believes
/// nothing the child says: its output cannot starve a deadline or reach a
/// terminal raw, its floods of events meet the host's own limits, its errors
/// cannot carry the host's verdicts, its descriptions meet graft.h's rules,
/// and what a plugin might leave on disk (the registry cache) cannot lie
/// about pins or hang the host.
@Suite("The host believes nothing a child says")
struct UntrustedChildTests {
    static func host(_ folder: URL, limits: IsolationLimits = IsolationLimits(), logger: CapturedLog? = nil) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, limits: limits),
            logger: logger?.logger ?? quietLogger)
        host.loadPlugins()
        return host
    }

    static func probe(_ host: GraftHost, _ act: String, _ target: String = "") throws -> ComponentInstance {
        try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": .string(act), "target": .string(target)])
    }

    @Test("a render that floods its stderr ends at its deadline with plugin_timeout; the next render works")
    func outputFloodMeetsTheDeadline() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .milliseconds(500)))
        let flooding = try Self.probe(host, "flood_stderr")
        let started = ContinuousClock.now
        let error = #expect(throws: GraftError.self) { try flooding.render() }
        #expect(error?.code == .pluginTimeout)
        #expect(ContinuousClock.now - started < .seconds(5), "the wait kept its deadline")
        #expect(try Self.probe(host, "environ", "LANG").render().text.hasPrefix("environ: ok"))
    }

    @Test("a render that emits more events than a call may carry fails with output_too_large, and its process is killed")
    func eventFloodMeetsTheLimit() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url)
        let flooding = try Self.probe(host, "emit_flood", "200")  // 200 × 64 KiB: past the 4 MiB a call may emit
        let error = #expect(throws: GraftError.self) { try flooding.render() }
        #expect(error?.code == .outputTooLarge)
        #expect(error?.message.contains("its process was killed") == true)
        #expect(try Self.probe(host, "emit_flood", "3").render().text == "emit_flood: ok 3", "a few events are fine")
    }

    @Test("a line a plugin writes reaches the host's log with its escape codes and NULs written out")
    func outputIsEscaped() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let log = CapturedLog()
        let host = Self.host(scratch.url, logger: log)
        _ = try Self.probe(host, "escape_output").render()
        let lines = log.all.map(\.message).filter { $0.contains("pwned") }
        #expect(lines.contains { $0.contains("\\u{1B}]0;pwned\\u{7} and a NUL \\u{0} here") }, "\(log.all.map(\.message))")
        #expect(!lines.contains { $0.unicodeScalars.contains { $0.value < 0x20 } })
    }

    @Test(
        "a plugin that logs 5,000 lines in one render has the host write at most a second's worth and say how many it dropped, isolated or in process",
        arguments: [false, true])
    func logLinesAreRationed(inProcess: Bool) throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let log = CapturedLog()
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [scratch.url.path]), cacheFolder: nil, isolation: inProcess ? .inProcess : .perPlugin),
            logger: log.logger)
        host.loadPlugins()
        let rendered = try Self.probe(host, "log_lines", "5000").render()
        #expect(rendered.text == "log_lines: ok 5000")
        let messages = log.all.map(\.message)
        let passed = messages.filter { $0.contains("logged line") || $0.contains("written line") }
        // The context's lines and, isolated, the child's own stderr: each rationed where it arrives.
        #expect(passed.count <= 2 * LineRate.perSecond + 50, "\(passed.count) lines written")
        #expect(passed.count >= 10, "lines still pass: \(passed.count)")
        // Said at the first line dropped, and with the count once lines pass again (or the call ends, isolated).
        let notes = messages.filter { $0.contains("log lines dropped: more than \(LineRate.perSecond) a second") }
        #expect(!notes.isEmpty, "the drop is said: \(messages.suffix(5))")
    }

    @Test("a plugin that declares in its runner other than what its scan saw is refused, as in process")
    func runnerDeclaresAsScanned() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url, defines: ["HOSTILE_SHIFTY": "1"])
        let host = Self.host(scratch.url)
        #expect(host.plugins.first?.components.map(\.key) == ["probe"], "the scan saw the component")
        let error = #expect(throws: GraftError.self) { try Self.probe(host, "environ", "LANG").render() }
        #expect(error?.code == .invalidDescriptor)
        #expect(error?.message.contains("in its runner than when it was scanned") == true, "\(String(describing: error))")
    }

    @Test(
        "a plugin whose thread kills or stops its scanner while the next file loads cannot get that file quarantined",
        arguments: ["crash_later", "stop_later"])
    func blameNeedsTheFileAlone(act: String) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        // Scanned in name order: a_ starts a thread that crashes (or stops) the scanner 100 ms later, while b_'s
        // constructor sleeps. A stopped scanner is a timeout blamed on b_.
        try Fixtures.build(
            "hostile", into: folder, defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"\(act)\"", "HOSTILE_CONSTRUCTOR_TARGET": "\"100\"", "HOSTILE_ID": "\"test.a\""],
            outputName: "liba_crasher.so")
        try Fixtures.build(
            "hostile", into: folder, defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"sleep\"", "HOSTILE_CONSTRUCTOR_TARGET": "\"1000\"", "HOSTILE_ID": "\"test.b\""],
            outputName: "libb_sleeper.so")
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path),
            logger: quietLogger)
        host.loadPlugins()
        // Scanned again alone, the sleeper is described (and then meets the crasher's names: issue 32's clash).
        let sleeper = host.failures.first { $0.path.hasSuffix("libb_sleeper.so") }
        #expect([.duplicateComponent, .duplicateValidator, .duplicateAction].contains(sleeper?.error.code), "\(host.failures)")
        #expect(!host.quarantined.contains { $0.path.hasSuffix("libb_sleeper.so") }, "never quarantined")
    }

    @Test("a child may say how the plugin failed, never give one of the host's verdicts")
    func childErrorCodes() throws {
        func decode(_ code: GraftError.Code) throws -> GraftError {
            var writer = WireWriter()
            writer.error(GraftError(code, "made up\u{1B}[2J"))
            var reader = WireReader(writer.bytes)
            return try reader.childError(path: "/x.so")
        }
        #expect(try decode(.renderFailed).message == "made up\\u{1B}[2J")
        for code: GraftError.Code in [.hashMismatch, .pluginNotPinned, .untrustedPlugin, .sandboxDenied, .pluginCrashed, .pluginTimeout] {
            #expect(throws: Wire.Violation.self) { try decode(code) }
        }
    }

    @Test("a description that breaks graft.h's rules is refused wherever it comes from")
    func descriptionRules() throws {
        let good = PluginDescription(
            id: "test.good", version: "1.0.0", name: "Good", path: "/x.so", imagePath: "/x.so", abi: .host, canUnload: true,
            components: [], validators: [], actions: [])
        #expect(good.ruleProblems.isEmpty)
        var bad = good
        bad.id = "test.\u{1B}[31mred"
        bad.components = [ComponentContract(key: "Bad Key", version: 0, name: "x\ny", description: nil, inputs: [], outputs: [])]
        let problems = bad.ruleProblems
        #expect(problems.contains("the id holds control characters"), "\(problems)")
        #expect(problems.contains { $0.contains("'Bad Key' is not a key") }, "\(problems)")
        #expect(problems.contains("component 'Bad Key' has version 0"), "\(problems)")
        #expect(problems.contains("component 'Bad Key''s name holds control characters"), "\(problems)")
    }

    @Test("a FIFO at the cache's name does not hang the host; a cache folder others can write is ignored")
    func cacheThatCannotHang() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(mkfifo(folder.appendingPathComponent(RegistryCache.fileName()).path, 0o600) == 0)
        let opened = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = RegistryCache(folder: folder.path)
            opened.signal()
        }
        #expect(opened.wait(timeout: .now() + 5) == .success, "opening the cache returned")

        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o777)
        let planted = RegistryCache(folder: shared.path)
        #expect(planted.problem?.contains("only this user can write") == true, "\(String(describing: planted.problem))")
        planted.record("/nowhere.so", FileIdentity(device: 1, inode: 1, size: 1, modified: 1, changed: 1), .quarantined(GraftError(.pluginCrashed, "x")))
        #expect(planted.save()?.contains("only this user can write") == true, "nor is it written")
    }

    @Test("--locked takes a file's hash from the file, never from the registry cache")
    func pinsFromTheFile() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let plugin = try Fixtures.build("good_echo", into: folder)
        let cacheFolder = scratch.file("cache").path
        // A cache that says the file has the hash the lock pins, which it does not.
        let file = try PluginFile(opening: plugin.path)
        let pinned = String(repeating: "ab", count: 32)
        let cache = RegistryCache(folder: cacheFolder)
        cache.record(file.realPath, file.identity, .quarantined(GraftError(.pluginCrashed, "placeholder")), hash: pinned)
        #expect(cache.save() == nil)
        let lock = scratch.file("graft.lock")
        try LockFile(plugins: [.init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", sha256: pinned)]).write(to: lock.path)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: cacheFolder, lockFile: lock.path),
            logger: quietLogger)
        host.loadPlugins()
        #expect(host.plugins.isEmpty)
        #expect(host.failures.first?.error.code == .hashMismatch)
    }
}
