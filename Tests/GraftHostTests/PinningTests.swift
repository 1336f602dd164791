import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Locked mode: only files whose content graft.lock pins may load.
@Suite("Pinning with graft.lock")
struct PinningTests {
    static func lockedHost(_ folder: URL, lock: URL, cache: URL) -> GraftHost {
        GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: cache.path, lockFile: lock.path),
            logger: quietLogger)
    }

    @Test("a pinned plugin loads; an unpinned one is plugin_not_pinned; one rebuilt with a byte changed is hash_mismatch naming both hashes")
    func lockedMode() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins"), cache = scratch.file("cache")
        let echo = try Fixtures.build("good_echo", into: folder)
        let counter = try Fixtures.build("good_counter", into: folder)
        let pinned = try GraftHost.contentHash(ofPluginAt: echo.path)
        let lock = scratch.file("graft.lock")
        try LockFile(plugins: [
            .init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", sha256: pinned),
            .init(id: "test.counter", version: "1.0.0", file: "libgood_counter.so", sha256: try GraftHost.contentHash(ofPluginAt: counter.path)),
        ]).write(to: lock.path)
        try Fixtures.build("good_empty", into: folder)

        let host = Self.lockedHost(folder, lock: lock, cache: cache)
        host.loadPlugins()
        #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.counter"])
        let unpinned = try #require(host.failures.first { $0.path.hasSuffix("libgood_empty.so") })
        #expect(unpinned.error.code == .pluginNotPinned)
        #expect(unpinned.error.message.contains(lock.path))

        // One byte of difference: the prefix "echo:" becomes "echo;".
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"echo;\""])
        let changed = try GraftHost.contentHash(ofPluginAt: echo.path)
        let rebuilt = Self.lockedHost(folder, lock: lock, cache: cache)
        rebuilt.loadPlugins()
        let mismatch = try #require(rebuilt.failures.first { $0.path == echo.path })
        #expect(mismatch.error.code == .hashMismatch)
        #expect(mismatch.error.message.contains(pinned) && mismatch.error.message.contains(changed))
        #expect(try rebuilt.validate("inits_are", value: 1).isValid, "the pinned plugin beside it works")
    }

    @Test("a lock file that cannot be read refuses every plugin with a reason naming it")
    func unreadableLock() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        let lock = scratch.file("graft.lock")
        try Data("{not json".utf8).write(to: lock)
        let host = Self.lockedHost(folder, lock: lock, cache: scratch.file("cache"))
        host.loadPlugins()
        #expect(host.plugins.isEmpty)
        #expect(host.failures.first?.error.code == .invalidConfig)
        #expect(host.failures.first?.error.message.contains(lock.path) == true)
    }

    @Test("in locked mode a hot swap to an unpinned build is rejected; the pinned build keeps serving")
    func lockedSwap() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let lock = scratch.file("graft.lock")
        try LockFile(plugins: [.init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", sha256: try GraftHost.contentHash(ofPluginAt: echo.path))])
            .write(to: lock.path)
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: []), loadsFromCopies: true, cacheFolder: scratch.file("cache").path,
                lockFile: lock.path, isolation: .inProcess),
            logger: quietLogger)
        try host.load(pluginAt: echo.path)
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v2:\""])
        guard case .failed(let error) = host.reload(pluginAt: echo.path).outcome else {
            Issue.record("an unpinned build swapped in")
            return
        }
        #expect(error.code == .hashMismatch)
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "echo:x")
    }
}
