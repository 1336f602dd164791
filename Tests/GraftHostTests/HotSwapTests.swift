import Foundation
import GraftSupport
import GraftTestSupport
import Synchronization
import Testing

@testable import GraftHost

/// Rebuilding a plugin under a running host: the C fixture `good_echo` is
/// recompiled with another `ECHO_PREFIX`, so a render says which build runs.
@Suite("Hot swap")
struct HotSwapTests {
    /// Builds good_echo with `prefix` at `scratch/libecho.so` (atomically, by rename).
    @discardableResult
    static func buildEcho(_ scratch: borrowing Scratch, prefix: String, version: String = "1.0.0") throws -> URL {
        try Fixtures.build(
            "good_echo", into: scratch.url, defines: ["ECHO_PREFIX": "\"\(prefix)\"", "ECHO_PLUGIN_VERSION": "\"\(version)\""],
            outputName: "libecho.so")
    }

    /// A host that maps private copies, as a host that reloads must: a file
    /// rewritten in place under a mapped image would crash it (SIGBUS).
    static func host(_ scratch: borrowing Scratch) throws -> (GraftHost, String) {
        let path = try buildEcho(scratch, prefix: "v1:").path
        let host = Self.inProcessHost(folders: [])
        try host.load(pluginAt: path)
        return (host, path)
    }

    @Test("a rebuilt plugin replaces the running one; live instances move with their state")
    func swapCarriesState() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), id: "e", inputs: ["text": "hi"])
        for _ in 0..<3 { #expect(try echo.render().text == "v1:hi") }

        try Self.buildEcho(scratch, prefix: "v2:", version: "2.0.0")
        let event = host.reload(pluginAt: path)
        guard case .swapped = event.outcome else {
            Issue.record("expected a swap, got \(event.summary)")
            return
        }
        #expect(event.oldVersion == "1.0.0" && event.newVersion == "2.0.0")
        #expect(event.recreated == [.init(instanceID: "e", component: ComponentReference(key: "echo"), stateCarried: true)])
        #expect(echo.saveState().map { String(decoding: $0, as: UTF8.self) } == "renders=3", "the render count came across")
        #expect(try echo.render().text == "v2:hi", "the same instance now runs the new build")
        #expect(echo.component.pluginID == "test.echo")
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "v2:x")
        #expect(host.plugins.map(\.version) == ["2.0.0"])
    }

    @Test("a host that reloads checks and maps one sealed copy of a file: nobody can change the copy, a rewrite in place after it leaves it as checked, and a file that changes while it is copied is refused (plugin_changed)")
    func sealedCopies() throws {
        let scratch = try Scratch()
        let path = try Self.buildEcho(scratch, prefix: "v1:").path
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let live = try PluginFile(opening: path)
        let copy = try live.sealedCopy()
        #expect(copy.identity == live.identity && copy.path == path && copy.descriptor != live.descriptor)
        #expect(Data(copy.read(at: 0, count: copy.size)) == original)
        var byte: UInt8 = 0x78
        #expect(pwrite(copy.descriptor, &byte, 1, 0) == -1 && errno == EPERM, "the copy cannot be written")
        #expect(ftruncate(copy.descriptor, 0) == -1 && errno == EPERM, "nor shrunk")
        #expect(ftruncate(copy.descriptor, off_t(copy.size + 4096)) == -1 && errno == EPERM, "nor grown")

        // The file rewritten in place, on the same inode, after the copy: the copy is still what was checked.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.write(Data(repeating: 0, count: 64))
        try handle.close()
        #expect(Data(copy.read(at: 0, count: copy.size)) == original)
        // The same open file copied now: it changed since it was opened, so no copy of it is trusted.
        let error = #expect(throws: GraftError.self) { try live.sealedCopy() }
        #expect(error?.code == .pluginChanged && error?.message.contains(path) == true, "\(String(describing: error))")
    }

    @Test("a host that loads from copies holds a plugin's first mapping to the hash of the copy it checked: other bytes under the same size and times are refused (plugin_changed)")
    func sameIdentityOtherBytes() throws {
        let scratch = try Scratch()
        let path = try Self.buildEcho(scratch, prefix: "v1:").path
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), loadsFromCopies: true, cacheFolder: scratch.file("cache").path),
            logger: quietLogger)
        try host.load(pluginAt: path)
        let plugin = try #require(host.table.plugin(at: FilePaths.resolvingSymlinks(path)))
        #expect(plugin.checkedHash == (try ContentHash.of(try PluginFile(opening: path))), "the checked copy's hash is kept")
        // The same bytes pass; other bytes that a clock too coarse to tell would give the same identity do not
        // (the identity is taken as unchanged here, as such a clock would report it).
        #expect(throws: Never.self) { _ = try host.reopen(plugin) { $0.identity } }
        try Self.buildEcho(scratch, prefix: "v2:")
        let error = #expect(throws: GraftError.self) { _ = try host.reopen(plugin) { $0.identity } }
        #expect(error?.code == .pluginChanged && error?.message.contains(path) == true, "\(String(describing: error))")
    }

    @Test("a build that crashes, exits or hangs while loading is rejected in the scanner; the running build keeps serving", arguments: ["bad_crash_init", "bad_exit_constructor", "bad_hang_init"])
    func badBuildRejected(fixture: String) throws {
        let scratch = try Scratch()
        let path = try Self.buildEcho(scratch, prefix: "v1:").path
        let host = GraftHost(
            configuration: GraftConfiguration(
                // A short deadline only for the hang: a crash can take a sanitized child longer to report.
                searchPath: SearchPath(folders: []), loadsFromCopies: true,
                scanning: Scanning(deadline: fixture == "bad_hang_init" ? .milliseconds(500) : .seconds(10))),
            logger: quietLogger)
        try host.load(pluginAt: path)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])

        try Fixtures.build(fixture, into: scratch.url, outputName: "libecho.so")
        let event = host.reload(pluginAt: path)
        guard case .failed(let error) = event.outcome else {
            Issue.record("expected the bad build to be rejected, got \(event.summary)")
            return
        }
        #expect(error.code == (fixture == "bad_hang_init" ? .pluginTimeout : .pluginCrashed))
        #expect(event.summary.contains(error.code.rawValue), "the swap event says why")
        #expect(try echo.render().text == "v1:hi", "the old build still serves its instance")
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "v1:x")

        // The next good build swaps in as usual.
        try Self.buildEcho(scratch, prefix: "v2:")
        guard case .swapped = host.reload(pluginAt: path).outcome else {
            Issue.record("the good build after a bad one did not swap in")
            return
        }
        #expect(try echo.render().text == "v2:hi")
    }

    @Test("swapEvents() streams every reload's event to an async caller, and stops observing once the stream is dropped")
    func swapEventStream() async throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        var events: AsyncStream<SwapEvent>? = host.swapEvents()
        #expect(!host.swapObservers.isEmpty)
        try Self.buildEcho(scratch, prefix: "v2:", version: "2.0.0")
        _ = host.reload(pluginAt: path)
        _ = host.reload(pluginAt: path)  // the same file again: unchanged
        var iterator = events?.makeAsyncIterator()
        let swapped = await iterator?.next()
        let unchanged = await iterator?.next()
        #expect(swapped?.newVersion == "2.0.0")
        guard case .swapped = swapped?.outcome else {
            Issue.record("expected the swap first, got \(swapped?.summary ?? "nothing")")
            return
        }
        guard case .unchanged = unchanged?.outcome else {
            Issue.record("expected the unchanged reload next, got \(unchanged?.summary ?? "nothing")")
            return
        }
        iterator = nil
        events = nil
        #expect(host.swapObservers.isEmpty, "the dropped stream's observer was removed")
    }

    @Test("after a rejected build, putting the running build's file back is said once (restoresRunningBuild); another unchanged reload is not")
    func runningBuildRestored() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        // A first reload records the running build's hash (a host loading from copies records none at its first load).
        _ = host.reload(pluginAt: path)
        try Fixtures.build("bad_init_false", into: scratch.url, outputName: "libecho.so")
        guard case .failed = host.reload(pluginAt: path).outcome else {
            Issue.record("expected the bad build to be rejected")
            return
        }
        // The same good bytes back, by rename as a build writes them.
        let partial = scratch.file(".libecho.so.partial")
        try good.write(to: partial)
        #expect(rename(partial.path, path) == 0)
        let restored = host.reload(pluginAt: path)
        guard case .unchanged = restored.outcome else {
            Issue.record("expected unchanged, got \(restored.summary)")
            return
        }
        #expect(restored.restoresRunningBuild)
        #expect(restored.summary.contains("the running build's file is back"), "\(restored.summary)")
        let again = host.reload(pluginAt: path)
        #expect(!again.restoresRunningBuild, "said once")
        #expect(again.summary.hasSuffix(": unchanged"))
    }

    @Test("swap observer tokens are never handed out twice, even after the newest is removed")
    func observerTokens() {
        let host = GraftHost(configuration: TestConfigurations.plain, logger: quietLogger)
        let first = host.addSwapObserver { _ in }
        let second = host.addSwapObserver { _ in }
        host.removeSwapObserver(second)
        let third = host.addSwapObserver { _ in }
        #expect(Set([first, second, third]).count == 3)
    }

    @Test("a new file that fails to load is listed with the failures, until a good build replaces it or it goes")
    func newFileFailureIsListed() throws {
        let scratch = try Scratch()
        let host = Self.inProcessHost(folders: [])
        let folder = scratch.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let junk = folder.appendingPathComponent("libjunk.so")
        try Data("not a shared library".utf8).write(to: junk)
        guard case .failed(let error) = host.reload(pluginAt: junk.path).outcome else {
            Issue.record("a junk file loaded")
            return
        }
        #expect(host.failures.map(\.path) == [junk.path])
        #expect(host.failures.first?.error.code == error.code)
        // A good build at the same path: loaded, and no longer a failure.
        try Self.replace(junk.path, with: try Self.buildEcho(scratch, prefix: "ok:"))
        guard case .loaded = host.reload(pluginAt: junk.path).outcome else {
            Issue.record("the good build did not load")
            return
        }
        #expect(host.failures.isEmpty, "\(host.failures)")
        // Junk again, then gone: the failure goes with the file.
        let other = folder.appendingPathComponent("libother.so")
        try Data("junk".utf8).write(to: other)
        _ = host.reload(pluginAt: other.path)
        #expect(host.failures.map(\.path) == [other.path])
        try FileManager.default.removeItem(at: other)
        guard case .removed = host.reload(pluginAt: other.path).outcome else {
            Issue.record("the file's going was not a removal")
            return
        }
        #expect(host.failures.isEmpty)
    }

    @Test("the same content again is not reloaded")
    func unchanged() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        guard case .unchanged = host.reload(pluginAt: path).outcome else {
            Issue.record("an unchanged file was reloaded")
            return
        }
    }

    /// Broken builds of every kind written over the running plugin's file.
    enum Breakage: String, CaseIterable, Sendable {
        case notELF, truncated, missingEntry, abiMajor, initFalse, duplicateID, badSignature

        var code: GraftError.Code {
            switch self {
            case .notELF, .truncated: .notASharedLibrary
            case .missingEntry: .entrySymbolMissing
            case .abiMajor: .abiIncompatible
            case .initFalse: .pluginInitFailed
            case .duplicateID: .duplicatePlugin
            case .badSignature: .invalidSignature
            }
        }
    }

    @Test("a broken rebuild keeps the running build live", arguments: Breakage.allCases)
    func brokenRebuild(_ breakage: Breakage) throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        let side = scratch.url.appendingPathComponent("side")
        switch breakage {
        case .notELF:
            try Data("not a plugin".utf8).write(to: URL(fileURLWithPath: path))
        case .truncated:
            let good = try Self.buildEcho(scratch, prefix: "v2:")
            let bytes = try Data(contentsOf: good)
            try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: path))
        case .missingEntry:
            try Self.replace(path, with: Fixtures.build("bad_no_entry", into: side))
        case .abiMajor:
            try Self.replace(path, with: Fixtures.build("bad_abi_major", into: side))
        case .initFalse:
            try Self.replace(path, with: Fixtures.build("bad_init_false", into: side))
        case .duplicateID:
            // Another file holds the plugin id test.dup-a; the new build of this file is that plugin too.
            try host.load(pluginAt: Fixtures.build("dup_a", into: side).path)
            try Self.replace(path, with: Fixtures.build("dup_a", into: side, outputName: "libdup_a_copy.so"))
        case .badSignature:
            try Self.replace(path, with: Fixtures.build("bad_signature", into: side))
        }
        let event = host.reload(pluginAt: path)
        guard case .failed(let error) = event.outcome else {
            Issue.record("\(breakage): expected a failure, got \(event.summary)")
            return
        }
        #expect(error.code == breakage.code, "\(error)")
        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo")
        #expect(try echo.render().text == "v1:hi")
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "v1:x")
    }

    /// Moves `build` over `path` in one step, as an editor's save does.
    static func replace(_ path: String, with build: URL) throws {
        guard rename(build.path, path) == 0 else {
            throw Fixtures.BuildError(description: "rename \(build.path) → \(path): \(String(cString: strerror(errno)))")
        }
    }

    @Test("threads resolving and rendering through 30 swaps never see a failed lookup, and see the new build")
    func lookupsNeverFail() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let load = Load()
        try Self.whileBusy([1, 2], load: load, { _, load in
            do {
                let instance = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "t"])
                let text = try instance.render().text
                load.seen.withLock { _ = $0.insert(text) }
                instance.close()
                load.renders.wrappingAdd(1, ordering: .relaxed)
            } catch {
                load.failures.wrappingAdd(1, ordering: .relaxed)
            }
        }) {
            try Self.swap(host, path, scratch, rounds: 30)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(load.failures.load(ordering: .relaxed) == 0)
        #expect(load.renders.load(ordering: .relaxed) > 0)
        #expect(load.seen.withLock { $0.contains("r30:t") }, "the last build was seen serving")
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "t"]).render().text == "r30:t")
    }

    @Test("threads validating by name through 30 swaps never fail, and every old image is closed")
    func validationThroughSwaps() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let load = Load()
        var images: [String] = []
        // One thread on the typed fast path, one forced through libffi.
        try Self.whileBusy([NativeCallPath.automatic, .libffi], load: load, { path, load in
            let value = load.renders.load(ordering: .relaxed)
            do {
                let result = try host.validate("is_even", value: .number(Double(value)), path: path)
                if result.isValid != value.isMultiple(of: 2) { load.failures.wrappingAdd(1, ordering: .relaxed) }
                load.renders.wrappingAdd(1, ordering: .relaxed)
            } catch {
                load.failures.wrappingAdd(1, ordering: .relaxed)
            }
        }) {
            try Self.swap(host, path, scratch, rounds: 30) { images.append($0) }
        }
        #expect(load.failures.load(ordering: .relaxed) == 0)
        #expect(load.renders.load(ordering: .relaxed) > 0)
        // An old build is closed once the calls that may use it have returned.
        let deadline = ContinuousClock.now + .seconds(5)
        while images.contains(where: Self.mapped), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(images.filter(Self.mapped).isEmpty, "old builds still mapped")
        #expect(Self.mapped(try #require(host.plugins.first?.imagePath)))
    }

    @Test("a key the new build drops: its instances stay on the old build, new lookups fail")
    func orphanedInstances() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), id: "old", inputs: ["text": "hi"])
        try Self.replace(path, with: Fixtures.build("good_empty", into: scratch.url.appendingPathComponent("side")))
        let event = host.reload(pluginAt: path)
        #expect(event.orphaned == ["old"])
        #expect(try echo.render().text == "v1:hi")
        let error = #expect(throws: GraftError.self) { try host.resolve(ComponentReference(key: "echo")) }
        #expect(error?.code == .customComponentNotFound)
    }

    @Test("a removed file unregisters its components once its last instance closes")
    func removedFile() throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        try FileManager.default.removeItem(atPath: path)
        guard case .removed = host.reload(pluginAt: path).outcome else {
            Issue.record("expected a removal")
            return
        }
        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo", "still in use")
        echo.close()
        #expect(throws: GraftError.self) { try host.resolve(ComponentReference(key: "echo")) }
        #expect(host.plugins.isEmpty)
    }

    @Test("the old C image is closed once nothing uses it; only the new one stays mapped")
    func oldImageClosed() throws {
        let scratch = try Scratch()
        let path = try Self.buildEcho(scratch, prefix: "v1:").path
        let host = Self.inProcessHost(folders: [])
        try host.load(pluginAt: path)
        let first = try #require(host.plugins.first?.imagePath)
        #expect(first != path, "loaded from a private copy")
        #expect(Self.mapped(first))
        try Self.buildEcho(scratch, prefix: "v2:")
        host.reload(pluginAt: path)
        let second = try #require(host.plugins.first?.imagePath)
        // Released at once, or, when another test's validator call was inside
        // the validator table as it was replaced, within a millisecond of it returning.
        #expect(eventually(timeout: .seconds(2)) { !Self.mapped(first) }, "the old build was closed")
        #expect(Self.mapped(second))
    }

    /// A host that maps its plugins here, from private copies (hot swap in
    /// process: what these tests look at in /proc/self/maps).
    static func inProcessHost(folders: [String]) -> GraftHost {
        GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: folders), loadsFromCopies: true, isolation: .inProcess),
            logger: quietLogger)
    }

    /// Whether the process maps `path` (read as a stream: /proc files report size 0).
    static func mapped(_ path: String) -> Bool {
        let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data()
        return String(decoding: data, as: UTF8.self).contains(path)
    }

    @Test("the watcher reloads once per build: an atomic rename and an in-place rewrite")
    func watcher() async throws {
        let scratch = try Scratch()
        let (host, path) = try Self.host(scratch)
        let events = Locked<[SwapEvent]>([])
        host.addSwapObserver { event in events.withLock { $0.append(event) } }
        let watcher = try host.watchPluginFolders([scratch.url.path], debounce: .milliseconds(30))
        defer { watcher.stop() }

        try Self.buildEcho(scratch, prefix: "v2:")  // cc to a temporary name, then rename: IN_MOVED_TO
        try await Self.waitFor { events.withLock { $0.count } >= 1 }
        // Every event of that build read and handled, not a fixed sleep.
        try await Self.waitFor { watcher.isSettled }
        #expect(events.withLock { $0.count } == 1, "exactly one reload for one build")
        #expect(try await host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "v2:x")

        // Rewritten in place, as `cp` does: IN_CLOSE_WRITE.
        let side = try Fixtures.build(
            "good_echo", into: scratch.url.appendingPathComponent("side"), defines: ["ECHO_PREFIX": "\"v3:\""])
        let bytes = try Data(contentsOf: side)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
        try await Self.waitFor { events.withLock { $0.count } >= 2 }
        try await Self.waitFor { watcher.isSettled }
        #expect(events.withLock { $0.count } == 2, "\(events.withLock { $0.map(\.summary) })")
        #expect(try await host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "v3:x", "\(events.withLock { $0.map(\.summary) })")
    }

    @Test("a plugin file named on the search path is watched (through its folder), and only that file")
    func watcherOfOneFile() async throws {
        let scratch = try Scratch()
        let (_, path) = try Self.host(scratch)
        let host = Self.inProcessHost(folders: [path])
        try host.load(pluginAt: path)
        let events = Locked<[SwapEvent]>([])
        host.addSwapObserver { event in events.withLock { $0.append(event) } }
        let watcher = try host.watchPluginFolders(debounce: .milliseconds(30))
        defer { watcher.stop() }
        #expect(watcher.folders == [path], "graft watch prints the file it watches")

        // A neighbour in the same folder is not this watcher's business.
        try Fixtures.build("good_widget", into: scratch.url)
        try Self.buildEcho(scratch, prefix: "v2:")
        try await Self.waitFor { events.withLock { $0.count } >= 1 }
        try await Self.waitFor { watcher.isSettled }
        #expect(events.withLock { $0.map(\.path) } == [path], "\(events.withLock { $0.map(\.summary) })")
        #expect(try await host.makeInstance(of: "echo", inputs: ["text": "x"]).render().text == "v2:x")
        #expect(host.plugins.count == 1, "the neighbour was not loaded")
    }


    /// then stops them (also when `body` throws). Threads of their own: a
    /// busy loop must not take the few workers that Swift's cooperative pool
    /// or Dispatch's global queues have (two on a two-core machine), which
    /// other suites running meanwhile need.
    static func whileBusy<Worker: Sendable>(
        _ workers: [Worker], load: Load, _ work: @escaping @Sendable (Worker, Load) -> Void, during body: () throws -> Void
    ) rethrows {
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            Thread.detachNewThread {
                while !load.stop.load(ordering: .relaxed) { work(worker, load) }
                group.leave()
            }
        }
        defer {
            load.stop.store(true, ordering: .relaxed)
            group.wait()
        }
        try body()
    }

    /// Rebuilds and reloads the echo plugin `rounds` times (prefix `rN:`),
    /// telling `before` each image path it replaces.
    static func swap(
        _ host: GraftHost, _ path: String, _ scratch: borrowing Scratch, rounds: Int, before: (String) -> Void = { _ in }
    ) throws {
        for round in 1...rounds {
            if let image = host.plugins.first?.imagePath { before(image) }
            try buildEcho(scratch, prefix: "r\(round):")
            guard case .swapped = host.reload(pluginAt: path).outcome else {
                Issue.record("round \(round) did not swap")
                return
            }
        }
    }

    /// What the rendering threads share.
    final class Load: Sendable {
        let stop = Atomic<Bool>(false)
        let failures = Atomic<Int>(0)
        let renders = Atomic<Int>(0)
        let seen = Locked<Set<String>>([])
    }

    @Test("the watcher loads a plugin file that appears in a watched folder")
    func watcherLoadsNewFile() async throws {
        let scratch = try Scratch()
        let host = Self.inProcessHost(folders: [])
        let watcher = try host.watchPluginFolders([scratch.url.path], debounce: .milliseconds(20))
        defer { watcher.stop() }
        #expect(throws: GraftError.self) { try host.resolve(ComponentReference(key: "multi")) }
        try Fixtures.build("good_two_versions", into: scratch.url)
        try await Self.waitFor { (try? host.resolve(ComponentReference(key: "multi"))) != nil }
        #expect(host.plugins.map(\.id) == ["test.two-versions"])
    }

    static func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw Fixtures.BuildError(description: "timed out waiting") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
