import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Plugin files are third-party code: a file another user could have written
/// is refused before any of its code runs, and the file checked is the file
/// loaded. Each case puts a good plugin beside the bad one and checks that it
/// still loads and works.
@Suite("Trust and file identity")
struct TrustTests {
    /// A folder of our own (mode 0755) holding good_echo, for the good plugin
    /// that must keep working beside each bad case.
    static func folderWithEcho(_ scratch: borrowing Scratch) throws -> (folder: URL, echo: URL) {
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        chmod(folder.path, 0o755)
        return (folder, echo)
    }

    static func expectEchoWorks(_ host: GraftHost) throws {
        let instance = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "ok"])
        #expect(try instance.render().text == "echo:ok")
    }

    @Test("a group- or world-writable plugin file is refused with untrusted_plugin naming the file and its mode", arguments: [0o666, 0o664, 0o646])
    func writableFile(mode: Int) throws {
        let scratch = try Scratch()
        let (folder, _) = try Self.folderWithEcho(scratch)
        let bad = try Fixtures.build("good_empty", into: folder)
        chmod(bad.path, mode_t(mode))
        let host = inProcessHost(folder)
        host.loadPlugins()
        let failure = try #require(host.failures.first { $0.path == bad.path })
        #expect(failure.error.code == .untrustedPlugin)
        #expect(failure.error.message.contains(bad.path))
        #expect(failure.error.message.contains("0" + String(mode, radix: 8)))
        #expect(!host.plugins.contains { $0.id == "test.empty" })
        try Self.expectEchoWorks(host)
    }

    @Test("a plugin in a world-writable folder without the sticky bit is refused; with it, it loads")
    func writableFolder() throws {
        let scratch = try Scratch()
        let open = scratch.url.appendingPathComponent("open")
        let plugin = try Fixtures.build("good_empty", into: open)
        chmod(open.path, 0o777)
        let error = #expect(throws: GraftError.self) { try inProcessHost(open).load(pluginAt: plugin.path) }
        #expect(error?.code == .untrustedPlugin)
        #expect(error?.message.contains(open.path) == true && error?.message.contains("0777") == true)

        chmod(open.path, 0o1777)  // as /tmp is
        #expect(try inProcessHost(open).load(pluginAt: plugin.path).id == "test.empty")
    }

    @Test("one host loading file after file: a refused folder loads as soon as it is fixed, and a folder opened to everyone is refused again within a second")
    func folderVerdictsOverTime() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let empty = try Fixtures.build("good_empty", into: folder)
        let echo = try Fixtures.build("good_echo", into: folder)
        let counter = try Fixtures.build("good_counter", into: folder)
        let host = inProcessHost(folder)

        chmod(folder.path, 0o777)
        let refused = #expect(throws: GraftError.self) { try host.load(pluginAt: empty.path) }
        #expect(refused?.code == .untrustedPlugin)
        chmod(folder.path, 0o755)  // a refusal is never remembered
        #expect(try host.load(pluginAt: empty.path).id == "test.empty")

        // A trusted verdict is kept for a moment (TrustGate.trustedLifetime), then checked again.
        chmod(folder.path, 0o777)
        // Each try loads a new copy (a loaded file is not checked again):
        // refused with duplicate_plugin while the folder is still trusted.
        var tries = 0
        var lastError: GraftError?
        #expect(try eventually(timeout: .seconds(5)) {
            tries += 1
            let copy = folder.appendingPathComponent("libcopy\(tries).so")
            try FileManager.default.copyItem(at: echo, to: copy)
            do throws(GraftError) {
                try host.load(pluginAt: copy.path)
            } catch {
                lastError = error
            }
            return lastError?.code == .untrustedPlugin
        })
        #expect(lastError?.message.contains(folder.path) == true)
        chmod(folder.path, 0o755)
        #expect(try host.load(pluginAt: counter.path).id == "test.counter")
    }

    @Test("a plugin file or folder owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func foreignOwner() throws {
        let scratch = try Scratch()
        let (folder, _) = try Self.folderWithEcho(scratch)
        let file = try Fixtures.build("good_empty", into: folder)
        #expect(chown(file.path, 65534, 65534) == 0)
        let host = inProcessHost(folder)
        host.loadPlugins()
        let failure = try #require(host.failures.first { $0.path == file.path })
        #expect(failure.error.code == .untrustedPlugin)
        #expect(failure.error.message.contains("owned by user 65534"))
        try Self.expectEchoWorks(host)

        let foreignFolder = scratch.url.appendingPathComponent("theirs")
        let inside = try Fixtures.build("good_empty", into: foreignFolder)
        #expect(chown(foreignFolder.path, 65534, 65534) == 0)
        let error = #expect(throws: GraftError.self) { try inProcessHost(foreignFolder).load(pluginAt: inside.path) }
        #expect(error?.code == .untrustedPlugin)
        #expect(error?.message.contains(foreignFolder.path) == true)
    }

    @Test("allowing untrusted plugins loads them (for development)")
    func allowUntrusted() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("good_empty", into: scratch.url)
        chmod(plugin.path, 0o666)
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: []), trust: TrustPolicy(allowsUntrusted: true)),
            logger: quietLogger)
        #expect(try host.load(pluginAt: plugin.path).id == "test.empty")
    }

    @Test("a hard link or a symlink to a loaded plugin is reported, and init never runs again")
    func secondPathToOneFile() throws {
        let scratch = try Scratch()
        let counter = try Fixtures.build("good_counter", into: scratch.url)
        let other = scratch.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let hardLink = other.appendingPathComponent("libhard.so")
        #expect(link(counter.path, hardLink.path) == 0)
        let symbolic = other.appendingPathComponent("libsoft.so")
        #expect(symlink("../libgood_counter.so", symbolic.path) == 0)

        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: counter.path)
        for second in [hardLink, symbolic] {
            let error = #expect(throws: GraftError.self) { try host.load(pluginAt: second.path) }
            #expect(error?.code == .duplicatePlugin, "\(second.lastPathComponent)")
            #expect(error?.message.contains(counter.path) == true && error?.message.contains("same file") == true)
        }
        #expect(try host.validate("inits_are", value: 1).isValid, "init ran once, deinit never")
        #expect(host.plugins.count == 1)
    }

    @Test("graft_entry exported as data is refused from the symbol table, never called")
    func entryAsData() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("bad_entry_data", into: scratch.url)
        let error = #expect(throws: GraftError.self) { try inProcessHost(scratch.url).load(pluginAt: plugin.path) }
        #expect(error?.code == .entrySymbolMissing)
        #expect(error?.message.contains("as data") == true)
    }

    @Test("a 4 GB sparse file is refused without being read")
    func hugeSparseFile() throws {
        let scratch = try Scratch()
        let (folder, _) = try Self.folderWithEcho(scratch)
        let huge = folder.appendingPathComponent("libhuge.so")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: Data([0x7F, 0x45, 0x4C, 0x46])))
        #expect(truncate(huge.path, 4 << 30) == 0)
        let host = inProcessHost(folder)
        host.loadPlugins()
        let failure = try #require(host.failures.first { $0.path == huge.path })
        #expect(failure.error.code == .pluginTooLarge)
        #expect(failure.error.message.contains(huge.path))
        try Self.expectEchoWorks(host)
    }

    @Test("names that cannot be plugins: not UTF-8, a dangling symlink, a symlink loop, a FIFO")
    func oddNames() throws {
        let scratch = try Scratch()
        let (folder, _) = try Self.folderWithEcho(scratch)
        // A name with the byte 0xFF, made with the raw bytes.
        let raw = Array(folder.path.utf8) + [0x2F, 0x6C, 0x69, 0x62, 0xFF, 0x2E, 0x73, 0x6F, 0]
        let created = raw.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(created >= 0)
        close(created)
        #expect(symlink("libnowhere.so", folder.appendingPathComponent("libdangling.so").path) == 0)
        #expect(symlink("libloop.so", folder.appendingPathComponent("libloop.so").path) == 0)
        #expect(mkfifo(folder.appendingPathComponent("libfifo.so").path, 0o644) == 0)

        let host = inProcessHost(folder)
        host.loadPlugins()  // returns: the FIFO is never waited on
        let failures = Dictionary(uniqueKeysWithValues: host.failures.map { (($0.path as NSString).lastPathComponent, $0.error) })
        #expect(failures["lib\\xFF.so"]?.code == .invalidFileName)
        #expect(failures["libdangling.so"]?.code == .pluginNotFound)
        #expect(failures["libdangling.so"]?.message.contains("dangling symlink") == true)
        #expect(failures["libloop.so"]?.message.contains("symlink loop") == true)
        #expect(failures["libfifo.so"]?.code == .notASharedLibrary)
        try Self.expectEchoWorks(host)

        // The same names given to load(pluginAt:) directly, which opens by path.
        for (name, words) in [("libdangling.so", "dangling symlink"), ("libloop.so", "symlink loop"), ("libabsent.so", "does not exist")] {
            let path = folder.appendingPathComponent(name).path
            let error = #expect(throws: GraftError.self) { try host.load(pluginAt: path) }
            #expect(error?.code == .pluginNotFound, "\(name)")
            #expect(error?.message.contains(words) == true, "\(name): \(error?.message ?? "")")
        }
        try Self.expectEchoWorks(host)
    }
}
