import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Every plugin file is loaded first in a scanner child: a plugin whose
/// constructor or init crashes, exits or hangs is reported with its code, the
/// signal or status and the stage, and the host (this test process) goes on
/// with the good plugins beside it.
@Suite("Scanning in a child process")
struct ScannerTests {
    /// Every fixture that crashes or hangs its loader, with its stage.
    static let childOnly: [String] = Fixtures.all.filter {
        ["plugin_crashed", "plugin_timeout"].contains(try? Fixtures.expectedCode(of: $0))
    }

    /// The marker plugin's trace of each process that maps it is a file it
    /// writes, which the sandbox refuses (SandboxTests): the tests that count
    /// traces scan without it.
    static let unsandboxed = SandboxSettings(mode: .off)

    static func host(_ folders: URL..., deadline: Duration = .seconds(2)) -> GraftHost {
        GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: folders.map(\.path)), scanning: Scanning(deadline: deadline)),
            logger: quietLogger)
    }

    @Test("a folder seen for the first time is scanned by two children, files in flight; a crash in either half costs only its file")
    func coldFolderOnTwoScanners() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), marker = scratch.file("marker")
        let good = try Fixtures.build("good_marker", into: scratch.url, defines: ["MARKER_PATH": "\"\(marker.path)\""])
        let bad = try Fixtures.build("bad_crash_constructor", into: scratch.url)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let count = GraftHost.filesForTwoScanners + 8
        // Crashers early in each half: every file sent after one goes again to a new child.
        let crashers: Set<Int> = [2, count - 5]
        for index in 0..<count {
            let name = String(format: "lib%02d.so", index)
            try FileManager.default.copyItem(at: crashers.contains(index) ? bad : good, to: folder.appendingPathComponent(name))
        }
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path, isolation: .inProcess,
                sandbox: Self.unsandboxed),
            logger: quietLogger)
        host.loadPlugins()
        #expect(host.plugins.map(\.id) == ["test.marker"], "the copies are one plugin id: the first registers")
        let crashed = host.failures.filter { $0.error.code == .pluginCrashed }.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        #expect(Set(crashed) == Set(crashers.map { String(format: "lib%02d.so", $0) }))
        #expect(!host.failures.contains { $0.error.code == .pluginTimeout })
        // Each good copy was mapped once, in one of two scanner processes (the
        // children that replaced the crashed ones among them).
        let pids = try String(contentsOf: marker, encoding: .utf8).split(separator: "\n")
        #expect(pids.count == count - crashers.count)
        // One child per half, and one more in each half after its crash; a
        // single scanner would have used three.
        let twoScanners = ProcessInfo.processInfo.activeProcessorCount > 1
        #expect(Set(pids).count == (twoScanners ? 4 : 3))
        #expect(!pids.contains(Substring(String(getpid()))), "no plugin code ran in the host")
        #expect(try host.validate("marker_ok", value: 1).isValid)
    }

    @Test("a folder larger than one chunk is scanned a chunk at a time, every file described once")
    func coldFolderInChunks() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), marker = scratch.file("marker")
        let good = try Fixtures.build("good_marker", into: scratch.url, defines: ["MARKER_PATH": "\"\(marker.path)\""])
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let count = GraftHost.filesPerChunk + 20
        for index in 0..<count {
            try FileManager.default.copyItem(at: good, to: folder.appendingPathComponent(String(format: "lib%03d.so", index)))
        }
        let cache = scratch.file("cache")
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: cache.path, isolation: .inProcess, sandbox: Self.unsandboxed),
            logger: quietLogger)
        host.loadPlugins()
        #expect(host.plugins.count == 1)
        #expect(host.failures.count == count - 1, "the other copies are the same plugin id")
        #expect(!host.failures.contains { [.pluginCrashed, .pluginTimeout, .scannerUnavailable].contains($0.error.code) })
        let pids = try String(contentsOf: marker, encoding: .utf8).split(separator: "\n")
        #expect(pids.count == count, "each file was mapped once, in a scanner")
        // All of them are in the cache now: a second host scans nothing.
        let again = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: cache.path, isolation: .inProcess, sandbox: Self.unsandboxed),
            logger: quietLogger)
        again.loadPlugins()
        #expect(try String(contentsOf: marker, encoding: .utf8).split(separator: "\n").count == count)
    }

    static func stage(of fixture: String) throws -> String {
        let text = try String(contentsOf: Fixtures.source(fixture), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("// stage:") })
        return line.dropFirst("// stage:".count).trimmingCharacters(in: .whitespaces)
    }

    @Test("the scanner executable is found beside the test binary")
    func scannerFound() {
        #expect(ScannerLocation.find(configured: nil) != nil)
        #expect(Self.host().scanner != nil)
    }

    @Test("a plugin that crashes, exits or hangs while loading is reported; the good plugin beside it works", arguments: childOnly)
    func crashingPlugin(fixture: String) throws {
        let scratch = try Scratch()
        let bad = try Fixtures.build(fixture, into: scratch.url)
        let echo = try Fixtures.build("good_echo", into: scratch.url)
        let host = Self.host(scratch.url, deadline: .milliseconds(500))
        host.loadPlugins()

        let failure = try #require(host.failures.first { $0.path == bad.path }, "\(fixture) is reported")
        #expect(failure.error.code.rawValue == (try Fixtures.expectedCode(of: fixture)))
        #expect(failure.error.message.contains(bad.path))
        let stage = try Self.stage(of: fixture)
        #expect(failure.error.symbol == (stage == "constructors" ? "constructor" : stage), "\(failure.error)")
        switch fixture {
        case "bad_crash_init", "bad_crash_constructor": #expect(failure.error.message.contains("SIGSEGV"))
        case "bad_abort_init": #expect(failure.error.message.contains("SIGABRT"))
        case "bad_exit_init": #expect(failure.error.message.contains("exited with status 3"))
        case "bad_exit_constructor": #expect(failure.error.message.contains("exited with status 0"))
        default: #expect(failure.error.message.contains("did not finish loading within"))
        }
        #expect(host.plugins.map(\.path) == [echo.path])
        let instance = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "still here"])
        #expect(try instance.render().text == "echo:still here")
        #expect(try host.validate("is_even", value: 4).isValid)
    }

    @Test("an executable that is not a Graft child is scanner_unavailable: a sandboxed host loads nothing, an unsandboxed one loads in process")
    func notAGraftChild() throws {
        let error = #expect(throws: GraftError.self) {
            try ChildProcess.startGraftChild(executable: "/bin/true", arguments: ["scan"], onOutput: { _ in })
        }
        #expect(error?.code == .scannerUnavailable)
        #expect(error?.message.contains("/bin/true") == true)

        let scratch = try Scratch()
        let echo = try Fixtures.build("good_echo", into: scratch.url)
        func host(_ sandbox: SandboxSettings.Mode) -> GraftHost {
            GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: []), scanning: Scanning(executable: "/bin/true"), cacheFolder: nil,
                    isolation: .inProcess, sandbox: SandboxSettings(mode: sandbox)),
                logger: quietLogger)
        }
        let refused = #expect(throws: GraftError.self) { try host(.enforced).load(pluginAt: echo.path) }
        #expect(refused?.code == .scannerUnavailable)
        #expect(refused?.message.contains(echo.path) == true && refused?.message.contains("/bin/true") == true)
        #expect(try host(.off).load(pluginAt: echo.path).id == "test.echo")
    }

    @Test("one scanner serves a batch and is started again after each crash")
    func batchWithCrashes() throws {
        let scratch = try Scratch()
        for fixture in Self.childOnly + ["good_echo", "good_empty", "good_two_versions"] {
            try Fixtures.build(fixture, into: scratch.url)
        }
        let host = Self.host(scratch.url, deadline: .milliseconds(500))
        host.loadPlugins()
        #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.empty", "test.two-versions"])
        #expect(Set(host.failures.map { ($0.path as NSString).lastPathComponent }) == Set(Self.childOnly.map { "lib\($0).so" }))
    }

    @Test("a refusal found in the scanner keeps every problem the loader found")
    func refusalFromScanner() throws {
        let scratch = try Scratch()
        let bad = try Fixtures.build("bad_debug_type", into: scratch.url)
        let error = #expect(throws: GraftError.self) { try Self.host(scratch.url).load(pluginAt: bad.path) }
        #expect(error?.code == .invalidDescriptor)
        #expect(error?.message.contains(bad.path) == true)
    }

    @Test("the scanner child is reaped when its host goes away: no zombie, no descriptor left")
    func childReaped() throws {
        let scratch = try Scratch()
        let echo = try Fixtures.build("good_echo", into: scratch.url)
        var pid: pid_t = 0
        var endpoints: Set<String> = []
        do {
            let host = Self.host(scratch.url)
            try host.load(pluginAt: echo.path)
            pid = try #require(host.scanner?.childPID)
            endpoints = Set(host.scanner?.childDescriptors.compactMap(IsolationTests.target) ?? [])
            #expect(kill(pid, 0) == 0, "the scanner runs while its host lives")
        }
        // Reaped: the pid no longer exists (a zombie would still answer kill 0).
        #expect(kill(pid, 0) != 0)
        #expect(endpoints.count == 2)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
            .compactMap(IsolationTests.target)
        #expect(endpoints.isDisjoint(with: open), "the scanner's socket and pipe are closed")
    }
}
