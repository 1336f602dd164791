import Foundation
import GraftTestSupport
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

/// Plugins run sandboxed by default: a plugin that tries on purpose to read
/// secrets, reach the network, signal or trace its host, run programs or
/// leave processes behind is refused by the kernel, the host hears of every
/// refusal as `sandbox_denied` naming the plugin, and every good plugin
/// beside it keeps working. What a host grants, the plugin gets.
@Suite("Sandboxed plugins")
struct SandboxTests {
    /// A host app's default configuration (isolated, sandboxed), searching only `folder`.
    static func host(_ folder: URL, sandbox: SandboxSettings = SandboxSettings(), logger: Logger = quietLogger) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, sandbox: sandbox),
            logger: logger)
        host.loadPlugins()
        return host
    }

    /// A file only its owner may read, outside anything granted.
    static func secret(in scratch: borrowing Scratch) throws -> String {
        let path = scratch.file("secret").path
        try "the secret\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    static func render(_ host: GraftHost, act: String, target: String = "") throws -> (text: String, warnings: [GraftWarning]) {
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": .string(act), "target": .string(target)])
        defer { probe.close() }
        let text = try probe.render().text
        return (text, probe.warnings)
    }

    /// Each act, the target it takes, and words of the refusal the host reports.
    static func hostileActs(secret: String, scratch: String) -> [(act: String, target: String, reported: String)] {
        [
            ("read", secret, "read \(secret)"),
            ("read", "/etc/shadow", "read /etc/shadow"),
            ("write", scratch + "/written", "create \(scratch)/written"),
            ("connect", "22", "TCP socket"),
            ("udp", "53", "UDP socket"),
            ("unix", scratch + "/socket", "Unix socket"),
            ("kill_parent", "", "send signal 9 to process \(getpid())"),
            ("kill_group", "", "send signal 9 to a process group"),
            ("ptrace_parent", "", "trace process \(getpid())"),
            ("parent_environ", "", "read /proc/\(getpid())/environ"),
            ("parent_memory", "", "read the memory of process \(getpid())"),
            ("exec", "", "start a new process"),
            ("daemon", "", "start a new process"),
            ("chmod", secret, "change \(secret)"),
        ]
    }

    @Test("a render that tries each hostile act is refused it, and the instance warns sandbox_denied naming the plugin")
    func renderActs() throws {
        let scratch = try Scratch()
        let secret = try Self.secret(in: scratch)
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        try Fixtures.build("good_echo", into: folder)
        let host = Self.host(folder)
        #expect(host.failures.isEmpty, "\(host.failures)")
        for (act, target, reported) in Self.hostileActs(secret: secret, scratch: scratch.url.path) {
            let (text, warnings) = try Self.render(host, act: act, target: target)
            #expect(text.hasPrefix("\(act): refused"), "\(act) \(target): \(text)")
            let denials = warnings.filter { $0.code == .sandboxDenied }
            #expect(denials.contains { $0.message.contains("'test.hostile'") && $0.message.contains(reported) }, "\(act): \(warnings)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("written").path))
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "the secret\n")
        var information = stat()
        #expect(stat(secret, &information) == 0 && information.st_mode & 0o777 == 0o600, "chmod was refused")
        // The good plugin beside it, and the hostile one's ordinary calls, go on.
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "still here"])
        #expect(try echo.render().text == "echo:still here")
        #expect(try Self.render(host, act: "environ", target: "HOME").text.hasPrefix("environ: ok "))
    }

    @Test("each refused act is logged once: with its component when a render was about an instance, with its plugin when a validator was")
    func deniedOnce() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let file = try Fixtures.build("hostile", into: folder)
        let log = CapturedLog()
        let host = Self.host(folder, logger: log.logger)
        _ = try Self.render(host, act: "read", target: "/etc/shadow")
        let rendered = log.all.filter { $0.message.contains("sandbox_denied") && $0.message.contains("read /etc/shadow") }
        #expect(rendered.count == 1, "\(rendered.map(\.message))")
        #expect(rendered.first?.metadata["component"] == "probe@1", "\(rendered.map(\.metadata))")
        _ = try host.validate("probe", value: "read", params: ["/etc/gshadow"])
        let validated = log.all.filter { $0.message.contains("sandbox_denied") && $0.message.contains("read /etc/gshadow") }
        #expect(validated.count == 1, "\(validated.map(\.message))")
        #expect(validated.first?.metadata["plugin"] == file.path, "\(validated.map(\.metadata))")
    }

    @Test("a grant to an id no plugin has, or of a permission the plugin does not declare, is warned of (grant_unused); an empty search path is said")
    func grantsThatMeanNothing() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder, defines: ["HOSTILE_PORT": "4444"])  // declares network:4444 and data
        let log = CapturedLog()
        let grants: [String: [Permission]] = [
            "test.hostlie": [.dataFolder], "test.hostile": [.connect(ports: [4444]), .dataFolder, .anyNetwork],
        ]
        let data = scratch.url.appendingPathComponent("data").path
        let host = Self.host(folder, sandbox: SandboxSettings(grants: grants, dataFolder: data), logger: log.logger)
        let warned = log.all.filter { $0.level == .warning && $0.message.hasPrefix("grant_unused: ") }.map(\.message)
        #expect(
            warned == [
                "grant_unused: plugin 'test.hostile' is granted network:any, which it does not declare (it declares network:4444, data); granted all the same.",
                "grant_unused: data is granted to plugin 'test.hostlie', but no loaded plugin has that id. Did you mean 'test.hostile'?",
            ], "\(warned)")
        #expect(host.plugins.map(\.id) == ["test.hostile"])
        // What it declares, granted, draws no warning.
        let quiet = CapturedLog()
        _ = Self.host(
            folder, sandbox: SandboxSettings(grants: ["test.hostile": [.connect(ports: [4444]), .dataFolder]], dataFolder: data), logger: quiet.logger)
        #expect(!quiet.all.contains { $0.message.contains("grant_unused") }, "\(quiet.all.map(\.message))")
        // A search path that finds nothing says so, naming what it searched.
        let empty = scratch.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let nothing = CapturedLog()
        let bare = Self.host(empty, logger: nothing.logger)
        #expect(bare.failures.isEmpty && bare.plugins.isEmpty)
        #expect(
            nothing.all.contains { $0.level == .warning && $0.message.hasPrefix("plugin_not_found: the search path found no plugin") && $0.message.contains(empty.path) },
            "\(nothing.all.map(\.message))")
    }

    @Test("a validator and an action that try hostile acts are refused them, and the host's report names the plugin")
    func validatorAndAction() throws {
        let scratch = try Scratch()
        let secret = try Self.secret(in: scratch)
        let folder = scratch.url.appendingPathComponent("plugins")
        let file = try Fixtures.build("hostile", into: folder)
        let host = Self.host(folder)
        let result = try host.validate("probe", value: "read", params: [secret])
        #expect(!result.isValid)
        #expect(result.message?.hasPrefix("read: refused EACCES") == true, "\(String(describing: result.message))")
        let action = try host.invokeAction("probe", params: ["act": "kill_parent", "target": ""])
        #expect(action.variables["outcome"] == "kill_parent: refused EPERM")
        let denials = host.sandboxDenials(ofPluginAt: file.path).map(\.act)
        #expect(denials.contains("read \(secret)"), "\(denials)")
        #expect(denials.contains("send signal 9 to process \(getpid())"), "\(denials)")
    }

    @Test(
        "a constructor or an init that tries a hostile act cannot stop the scan: the plugin loads, and the host hears of it",
        arguments: [("HOSTILE_CONSTRUCTOR_ACT", "HOSTILE_CONSTRUCTOR_TARGET"), ("HOSTILE_INIT_ACT", "HOSTILE_INIT_TARGET")])
    func loadTimeActs(act: String, target: String) throws {
        let scratch = try Scratch()
        let secret = try Self.secret(in: scratch)
        for (what, on, reported) in [("kill_parent", "", "send signal 9 to process \(getpid())"), ("read", secret, "read \(secret)"), ("exec", "", "start a new process")] {
            let folder = scratch.url.appendingPathComponent(what)
            let file = try Fixtures.build("hostile", into: folder, defines: [act: "\"\(what)\"", target: "\"\(on)\""])
            try Fixtures.build("good_echo", into: folder)
            let host = Self.host(folder)
            #expect(host.failures.isEmpty, "\(what): \(host.failures)")
            #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.hostile"], "\(what)")
            #expect(host.sandboxDenials(ofPluginAt: file.path).map(\.act) == [reported], "\(what)")
            #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "echo:x")
        }
    }

    @Test("the child sees none of the host's environment but the locale, and a private folder as HOME and TMPDIR")
    func environment() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        setenv("GRAFT_TEST_SECRET_TOKEN", "hunter2", 1)
        defer { unsetenv("GRAFT_TEST_SECRET_TOKEN") }
        let host = Self.host(folder)
        #expect(try Self.render(host, act: "environ", target: "GRAFT_TEST_SECRET_TOKEN").text == "environ: ok (unset)")
        let home = try Self.render(host, act: "environ", target: "HOME").text
        #expect(home.hasPrefix("environ: ok /") && home.contains("graft-child-"))
        let temporary = String(home.dropFirst("environ: ok ".count))
        #expect(try Self.render(host, act: "write", target: temporary + "/scratch").text == "write: ok ")
        // A missing folder in its own: the kernel's answer, nothing refused. Outside it: refused, and said.
        let missing = try Self.render(host, act: "write", target: temporary + "/missing/deeper/file")
        #expect(missing.text == "write: refused ENOENT")
        #expect(!missing.warnings.contains { $0.code == .sandboxDenied })
        let outside = try Self.render(host, act: "write", target: "/nonexistent-graft-folder/deeper/file")
        #expect(outside.text == "write: refused EACCES")
        #expect(outside.warnings.contains { $0.message.contains("create /nonexistent-graft-folder/deeper/file") })
    }

    @Test("a child's private folder goes with its child; a sweep removes those of ended hosts and keeps live, locked and others' ones")
    func privateFolders() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let host = Self.host(folder)
        let temporary = String(try Self.render(host, act: "environ", target: "HOME").text.dropFirst("environ: ok ".count))
        #expect(try Self.render(host, act: "write", target: temporary + "/left").text == "write: ok ")
        host.shutDown(grace: .seconds(5))
        #expect(!FileManager.default.fileExists(atPath: temporary), "\(temporary) outlived its child")

        let parent = scratch.url.appendingPathComponent("tmp").path
        mkdir(parent, 0o700)
        // A process id no process has now.
        let ended = try #require((100_000...4_000_000).lazy.map { pid_t($0) }.first { kill($0, 0) != 0 && errno == ESRCH })
        func make(_ host: pid_t, _ suffix: String) -> String {
            let path = parent + "/" + ChildFolder.prefix + "\(host)-" + suffix
            mkdir(path, 0o700)
            return path
        }
        let gone = make(ended, "aaaaaa")
        FileManager.default.createFile(atPath: gone + "/left", contents: Data("x".utf8))
        let live = make(getpid(), "bbbbbb")
        let locked = make(ended, "cccccc")
        let held = open(locked, O_RDONLY | O_DIRECTORY)
        defer { close(held) }
        #expect(flock(held, LOCK_EX) == 0)
        let others = make(ended, "dddddd")
        let asRoot = geteuid() == 0
        // Another user's (not the one a root host's children run as, whose folders are root's to sweep).
        if asRoot { chown(others, 12345, 12345) }
        let unrelated = parent + "/graft-images-\(ended)-eeee"
        mkdir(unrelated, 0o700)
        #expect(ChildFolder.sweep(parent, olderThan: 0) == (asRoot ? 1 : 2))
        #expect(!FileManager.default.fileExists(atPath: gone))
        for kept in [live, locked, unrelated] + (asRoot ? [others] : []) {
            #expect(FileManager.default.fileExists(atPath: kept), "\(kept) was swept")
        }
        // Young folders are left alone: their maker may be about to lock them.
        let young = make(ended, "ffffff")
        #expect(ChildFolder.sweep(parent, olderThan: 60) == 0)
        #expect(FileManager.default.fileExists(atPath: young))
    }

    @Test("a plugin granted a port connects to a local server on it, and only on it")
    func grantedPort() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let server = try LoopbackServer(reply: "pong")
        let other = try LoopbackServer(reply: "other")
        let host = Self.host(folder, sandbox: SandboxSettings(grants: ["test.hostile": [.connect(ports: [server.port])]]))
        #expect(try Self.render(host, act: "connect", target: String(server.port)).text == "connect: ok pong")
        let (text, warnings) = try Self.render(host, act: "connect", target: String(other.port))
        #expect(text == "connect: refused EACCES")
        #expect(warnings.contains { $0.code == .sandboxDenied && $0.message.contains("connect to TCP port \(other.port)") })
        #expect(try Self.render(host, act: "udp", target: String(server.port)).text.hasPrefix("udp: refused"), "UDP is not TCP")
    }

    @Test("a plugin granted a folder reads it, and nothing beside it")
    func grantedFolder() throws {
        let scratch = try Scratch()
        let secret = try Self.secret(in: scratch)
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let assets = scratch.url.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        try "an asset\n".write(to: assets.appendingPathComponent("a.txt"), atomically: false, encoding: .utf8)
        let host = Self.host(folder, sandbox: SandboxSettings(grants: ["test.hostile": [.read(folder: assets.path)]]))
        #expect(try Self.render(host, act: "read", target: assets.appendingPathComponent("a.txt").path).text == "read: ok an asset")
        #expect(try Self.render(host, act: "read", target: secret).text == "read: refused EACCES")
        #expect(try Self.render(host, act: "write", target: assets.appendingPathComponent("b.txt").path).text == "write: refused EACCES")
    }

    @Test("a plugin granted a data folder writes there and nowhere else")
    func dataFolder() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let data = scratch.url.appendingPathComponent("data")
        let host = Self.host(folder, sandbox: SandboxSettings(grants: ["test.hostile": [.dataFolder]], dataFolder: data.path))
        let text = try Self.render(host, act: "data", target: "kept.txt").text
        let expected = data.appendingPathComponent("test.hostile/kept.txt").path
        // The child reaches it bound into its private folder (or by its own path where it has no mount namespace).
        #expect(text.hasPrefix("data: ok ") && text.hasSuffix("/kept.txt"), "\(text)")
        #expect(try String(contentsOfFile: expected, encoding: .utf8) == "kept\n")
        #expect(try Self.render(host, act: "write", target: scratch.file("elsewhere").path).text == "write: refused EACCES")
        // Without the grant, there is no data folder.
        let ungranted = Self.host(folder)
        #expect(try Self.render(ungranted, act: "data", target: "kept.txt").text == "data: refused ENOENT")
    }

    @Test("declared permissions are read with their reasons; a lock grants what it records and refuses a plugin that declares more")
    func declaredAndLocked() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let assets = scratch.url.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        try "locked asset\n".write(to: assets.appendingPathComponent("a.txt"), atomically: false, encoding: .utf8)
        let server = try LoopbackServer(reply: "pong")
        let file = try Fixtures.build("hostile", into: folder, defines: ["HOSTILE_PORT": String(server.port), "HOSTILE_READ": "\"\(assets.path)\""])
        let declared: [PermissionRequest] = [
            PermissionRequest(.connect(ports: [server.port]), reason: "Talks to its test server."),
            PermissionRequest(.dataFolder, reason: "Keeps what it learns."),
            PermissionRequest(.read(folder: assets.path), reason: "Reads its assets."),
        ]
        // Declared, not granted: it loads and runs without them.
        let plain = Self.host(folder)
        #expect(plain.plugins.first?.permissions == declared)
        #expect(try Self.render(plain, act: "connect", target: String(server.port)).text == "connect: refused EACCES")

        func lockedHost(granting permissions: [Permission]) throws -> GraftHost {
            let lock = scratch.file("graft.lock")
            try LockFile(plugins: [
                .init(id: "test.hostile", version: "1.0.0", file: "libhostile.so", sha256: GraftHost.contentHash(ofPluginAt: file.path), permissions: permissions)
            ]).write(to: lock.path)
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, lockFile: lock.path,
                    sandbox: SandboxSettings(dataFolder: scratch.file("data").path)),
                logger: quietLogger)
            host.loadPlugins()
            return host
        }
        // Locked with every declared permission: granted by the lock alone.
        let locked = try lockedHost(granting: declared.map(\.permission))
        #expect(locked.failures.isEmpty, "\(locked.failures)")
        #expect(try Self.render(locked, act: "connect", target: String(server.port)).text == "connect: ok pong")
        #expect(try Self.render(locked, act: "read", target: assets.appendingPathComponent("a.txt").path).text == "read: ok locked asset")
        // Locked with less than it declares: refused, naming what is missing.
        let short = try lockedHost(granting: [.dataFolder])
        #expect(short.plugins.isEmpty)
        let error = try #require(short.failures.first?.error)
        #expect(error.code == .pluginNotPinned)
        #expect(error.message.contains("declares network:\(server.port) (Talks to its test server.)"), "\(error.message)")
    }

    @Test("a plugin whose permissions break graft.h's rules is refused, every broken one named")
    func badPermissions() throws {
        let scratch = try Scratch()
        let file = try Fixtures.build("bad_permissions", into: scratch.url)
        let check = GraftHost.check(pluginAt: file.path, logger: quietLogger)
        #expect(check.problems.allSatisfy { $0.code == .invalidDescriptor && $0.symbol == "graft.permissions/1" })
        let messages = check.problems.map(\.message)
        for expected in [
            "permission #0 has kind 9, which graft.h does not define.", "permission #1 names port 0.",
            "permission #2 asks to read a folder whose path is NULL, relative", "permission #3 has no reason",
        ] {
            #expect(messages.contains { $0.contains(expected) }, "\(expected): \(messages)")
        }
    }

    @Test("a lock file that grants what is not a permission, and a plugin id that cannot name a data folder, are refused by name")
    func badGrants() throws {
        let scratch = try Scratch()
        let lock = scratch.file("graft.lock")
        try #"{"version": 1, "plugins": [{"id": "a", "version": "1", "file": "liba.so", "sha256": "\#(String(repeating: "0", count: 64))", "permissions": ["network:everything"]}]}"#
            .write(to: lock, atomically: false, encoding: .utf8)
        let error = #expect(throws: GraftError.self) { try LockFile(contentsOf: lock.path) }
        #expect(error?.code == .invalidConfig)
        #expect(error?.message.contains("grants liba.so 'network:everything', which is not a permission") == true, "\(String(describing: error))")

        let settings = SandboxSettings(grants: ["../escape": [.dataFolder]], dataFolder: scratch.file("data").path)
        let refused = #expect(throws: GraftError.self) { try settings.request(forPlugin: "../escape") }
        #expect(refused?.code == .permissionDenied)
        #expect(refused?.message.contains("'../escape' cannot name a data folder") == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("escape").path))
    }

    @Test("permissions read and print as the text people type")
    func permissionText() {
        for text in ["network:443", "network:80,443", "network:any", "read:/srv/assets", "data"] {
            #expect(Permission(text)?.description == text)
        }
        for text in ["network:", "network:0", "network:70000", "network:a", "read:relative", "write:/x", ""] {
            #expect(Permission(text) == nil, "\(text)")
        }
        #expect(Permission.connect(ports: [443]).isCovered(by: [.anyNetwork]))
        #expect(!Permission.connect(ports: [443, 80]).isCovered(by: [.connect(ports: [443])]))
        #expect(Permission.read(folder: "/srv/a/b").isCovered(by: [.read(folder: "/srv/a")]))
        #expect(!Permission.read(folder: "/srv/ab").isCovered(by: [.read(folder: "/srv/a")]))
    }
}

/// A TCP server on 127.0.0.1 that answers each connection with one line, on
/// a thread of its own, until the test ends.
final class LoopbackServer: @unchecked Sendable {
    let port: UInt16
    private let socket: Int32

    init(reply: String) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && listen(socket, 8) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw Fixtures.BuildError(description: "could not listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        self.socket = socket
        port = UInt16(bigEndian: address.sin_port)
        let listening = socket
        Thread.detachNewThread {
            while true {
                let connection = accept(listening, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(connection, &buffer, buffer.count)
                _ = (reply + "\n").withCString { write(connection, $0, strlen($0)) }
                close(connection)
            }
        }
    }

    deinit { shutdown(socket, Int32(SHUT_RDWR)); close(socket) }
}
