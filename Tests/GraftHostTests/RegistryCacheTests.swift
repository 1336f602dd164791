import Foundation
import GraftTestSupport
import Logging
import Testing

@testable import GraftHost

/// The registry cache: a host answers from it without running any plugin
/// code while the files are unchanged, maps a plugin only when something of
/// it is used, keeps files that crashed the scanner in quarantine, and
/// survives a cache that is damaged or cannot be written.
@Suite("Registry cache, quarantine and mapping on first use")
struct RegistryCacheTests {
    /// A host over `folder` with its own cache folder, mapping plugins in
    /// process on first use. The marker plugin's trace is a file it writes,
    /// which the sandbox refuses (SandboxTests), so these hosts run without it.
    static func host(
        _ folder: URL, cache: URL, scanning: Scanning = Scanning(deadline: .seconds(2)), logger: Logger = quietLogger
    ) -> GraftHost {
        GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), scanning: scanning, cacheFolder: cache.path,
                isolation: .inProcess, sandbox: SandboxSettings(mode: .off)),
            logger: logger)
    }

    /// The processes that have mapped the marker plugin, one line each.
    static func traces(_ marker: URL) -> [String] {
        ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static func buildMarker(_ folder: URL, marker: URL, id: String = "test.marker") throws -> URL {
        try Fixtures.build("good_marker", into: folder, defines: ["MARKER_PATH": "\"\(marker.path)\"", "MARKER_ID": "\"\(id)\""])
    }

    @Test("a second host answers from the cache: no plugin code runs until something of the plugin is used")
    func warmCacheRunsNoPluginCode() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        let marker = scratch.file("marker")
        try Self.buildMarker(folder, marker: marker)

        let first = Self.host(folder, cache: cache)
        first.loadPlugins()
        #expect(Self.traces(marker).count == 1, "scanned once, in the scanner child")
        #expect(!Self.traces(marker).contains(String(getpid())), "not mapped into the host")
        #expect(first.plugins.map(\.isMapped) == [false])

        try FileManager.default.removeItem(at: marker)
        let second = Self.host(folder, cache: cache)
        second.loadPlugins()
        #expect(second.plugins.map(\.id) == ["test.marker"])
        #expect(Self.traces(marker).isEmpty, "answered from the cache: nothing ran")
        #expect(second.scanner?.childPID == nil, "no scanner was started")

        // First use maps it, here: a validator by name.
        #expect(try second.validate("marker_ok", value: 1).isValid)
        #expect(Self.traces(marker) == [String(getpid())])
        #expect(second.plugins.map(\.isMapped) == [true])
        #expect(try second.invokeAction("marker_action").ok)
        #expect(Self.traces(marker).count == 1, "mapped once")
    }

    @Test("two hosts sharing a cache keep each other's entries: the one that writes last does not drop the other's")
    func hostsSharingACacheKeepEachOthersEntries() throws {
        let scratch = try Scratch()
        let first = scratch.url.appendingPathComponent("first"), second = scratch.url.appendingPathComponent("second")
        let cache = scratch.file("cache")
        let markers = (scratch.file("marker-first"), scratch.file("marker-second"))
        try Self.buildMarker(first, marker: markers.0, id: "test.first")
        try Self.buildMarker(second, marker: markers.1, id: "test.second")

        // Made before the other host writes: it read an empty cache.
        let late = Self.host(second, cache: cache)
        Self.host(first, cache: cache).loadPlugins()
        late.loadPlugins()
        #expect(Self.traces(markers.0).count == 1 && Self.traces(markers.1).count == 1, "each scanned once")

        try FileManager.default.removeItem(at: markers.0)
        try FileManager.default.removeItem(at: markers.1)
        // The two markers declare the same names, so each is listed by a host of its own.
        for (folder, id) in [(first, "test.first"), (second, "test.second")] {
            let host = Self.host(folder, cache: cache)
            host.loadPlugins()
            #expect(host.plugins.map(\.id) == [id])
        }
        #expect(Self.traces(markers.0).isEmpty && Self.traces(markers.1).isEmpty, "both answered from the cache")
    }

    @Test("components and actions map their plugin on first use")
    func componentsAndActionsMapOnFirstUse() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        try Fixtures.build("good_echo", into: folder)
        let host = Self.host(folder, cache: cache)
        host.loadPlugins()
        #expect(host.plugins.map(\.isMapped) == [false])
        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo", "resolving needs no image")
        #expect(host.plugins.map(\.isMapped) == [false])
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        #expect(try echo.render().text == "echo:hi")
        #expect(host.plugins.map(\.isMapped) == [true])

        let other = Self.host(folder, cache: cache)
        other.loadPlugins()
        #expect(try other.invokeAction("echo_action", params: ["text": "x"]).variables["echoed"] == "x")
        #expect(other.plugins.map(\.isMapped) == [true])
    }

    @Test("a rebuilt file is scanned again; one that now declares otherwise is refused on first use")
    func rebuiltFile() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        let marker = scratch.file("marker")
        try Self.buildMarker(folder, marker: marker)
        Self.host(folder, cache: cache).loadPlugins()
        try Self.buildMarker(folder, marker: marker)  // a new inode, the same declarations
        let host = Self.host(folder, cache: cache)
        host.loadPlugins()
        #expect(Self.traces(marker).count == 2, "the rebuild was scanned")

        // Registered, then rebuilt under a new id before its first use.
        try Self.buildMarker(folder, marker: marker, id: "test.other")
        let error = #expect(throws: GraftError.self) { try host.validate("marker_ok", value: 1) }
        #expect(error?.code == .invalidDescriptor)
        #expect(error?.message.contains("changed since it was registered") == true)
        #expect(host.failures.contains { $0.error.code == .invalidDescriptor })
    }

    @Test("a file that crashed the scanner is quarantined: refused without a scan until it changes or the quarantine is lifted")
    func quarantine() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        let crashing = try Fixtures.build("bad_crash_init", into: folder)
        try Fixtures.build("good_echo", into: folder)

        let first = Self.host(folder, cache: cache)
        first.loadPlugins()
        #expect(first.failures.first?.error.code == .pluginCrashed)
        #expect(first.quarantined.map(\.path) == [crashing.path])

        // Even a host that loads in process never maps it: this test process survives.
        let inProcess = Self.host(folder, cache: cache, scanning: .inProcess)
        inProcess.loadPlugins()
        let failure = try #require(inProcess.failures.first { $0.path == crashing.path })
        #expect(failure.error.code == .pluginCrashed)
        #expect(failure.error.message.contains("is quarantined"))
        #expect(failure.error.message.contains("SIGSEGV"))
        #expect(try inProcess.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hello"]).render().text == "echo:hello")

        #expect(inProcess.clearQuarantine(pluginAt: crashing.path) == [crashing.path])
        let afterClear = Self.host(folder, cache: cache)
        afterClear.loadPlugins()
        let again = try #require(afterClear.failures.first { $0.path == crashing.path })
        #expect(!again.error.message.contains("is quarantined"), "scanned again")
        #expect(again.error.code == .pluginCrashed)

        // Rebuilding lifts it by itself: the file is scanned as new.
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PLUGIN_VERSION": "\"9.0.0\""], outputName: "libbad_crash_init.so")
        let rebuilt = Self.host(folder, cache: cache)
        rebuilt.loadPlugins()
        #expect(!rebuilt.failures.contains { $0.path == crashing.path && $0.error.code == .pluginCrashed })
        #expect(rebuilt.quarantined.isEmpty)
    }

    @Test("a damaged cache is ignored with a reason and rebuilt", arguments: ["garbage", "truncated", "other version", "empty"])
    func damagedCache(damage: String) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        try Fixtures.build("good_echo", into: folder)
        Self.host(folder, cache: cache).loadPlugins()
        let file = cache.appendingPathComponent(RegistryCache.fileName())
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "garbage": bytes = Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        case "truncated": bytes = bytes.prefix(bytes.count / 2)
        case "other version": bytes[8] ^= 0xFF  // the format version
        default: bytes = Data()
        }
        try bytes.write(to: file)

        let log = CapturedLog()
        let host = Self.host(folder, cache: cache, logger: log.logger)
        host.loadPlugins()
        #expect(host.cache?.problem != nil, "\(damage): the reason is kept for the warning")
        // Read in the background, warned of before the first lookup has its answer.
        let warnings = log.all.filter { $0.level == .warning && $0.message.hasPrefix("registry cache: ") }
        #expect(warnings.count == 1 && warnings[0].message.contains(file.path), "\(damage): \(log.all.map(\.message))")
        #expect(host.plugins.map(\.id) == ["test.echo"])
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hello"]).render().text == "echo:hello")
        let rebuilt = Self.host(folder, cache: cache)
        #expect(rebuilt.cache?.problem == nil, "rebuilt")
        #expect(rebuilt.cache?.lookup(folder.appendingPathComponent("libgood_echo.so").path, try PluginFile(opening: folder.appendingPathComponent("libgood_echo.so").path).identity) != nil)
    }

    @Test("hosts made at once on every thread of the dispatch pool, sharing one cache file, each read it and load from it (the read, on the pool too, is not starved)")
    func hostsOnEveryPoolThread() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        try Fixtures.build("good_echo", into: folder)
        Self.host(folder, cache: cache).loadPlugins()
        let hosts = 16 * ProcessInfo.processInfo.activeProcessorCount
        let loaded = Locked(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: hosts) { _ in
                let host = Self.host(folder, cache: cache)
                host.loadPlugins()
                if host.plugins.map(\.id) == ["test.echo"], host.failures.isEmpty { loaded.withLock { $0 += 1 } }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "hosts made on pool threads still waited for their caches after 30 s")
        #expect(loaded.withLock { $0 } == hosts)
    }

    @Test("a cache folder that cannot be written only costs the speed-up")
    func unwritableCache() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        let blocker = scratch.file("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let host = Self.host(folder, cache: blocker.appendingPathComponent("graft"))
        host.loadPlugins()
        #expect(host.plugins.map(\.id) == ["test.echo"])
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hello"]).render().text == "echo:hello")
    }
}
