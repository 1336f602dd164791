import Foundation
import GraftSupport
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

/// The hostile corpus (`HostileCorpus`), category by category, in a host
/// app's default configuration: every act, from a render, a validator, an
/// action, a constructor and `init`, is refused (or finds nothing) and the
/// host reports it as `sandbox_denied` naming the plugin and the call; the
/// files it aimed at are untouched; the host and every good plugin go on.
/// `SandboxCLITests` runs the corpus from `graft` as nobody.
@Suite("The hostile corpus")
struct HostileCorpusTests {
    /// A scratch folder with the hostile fixture and the echo plugin, a
    /// secret, a readable file the plugin is granted, and a server.
    final class Setting {
        let scratch: Scratch
        let plugins: URL
        let secret: String
        let readable: String
        let server: LoopbackServer

        /// `defines` gets the secret's path: a constructor's target is compiled in.
        init(defines: (String) -> [String: String] = { _ in [:] }) throws {
            scratch = try Scratch()
            plugins = scratch.url.appendingPathComponent("plugins")
            secret = scratch.file("secret").path
            try "the secret\n".write(toFile: secret, atomically: false, encoding: .utf8)
            chmod(secret, 0o600)
            let assets = scratch.url.appendingPathComponent("assets")
            try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
            readable = assets.appendingPathComponent("readable").path
            try "readable\n".write(toFile: readable, atomically: false, encoding: .utf8)
            chmod(readable, 0o644)
            chmod(scratch.url.path, 0o755)
            server = try LoopbackServer(reply: "hello")
            try Fixtures.build("hostile", into: plugins, defines: defines(secret))
            try Fixtures.build("good_echo", into: plugins)
        }

        func target(_ act: HostileAct) -> String {
            switch act.target {
            case .secret: secret
            case .readable: readable
            case .port: String(server.port)
            default: act.target.fixedText ?? "x"
            }
        }

        func host(limits: IsolationLimits = IsolationLimits(), grants: [Permission] = []) -> GraftHost {
            let assets = FilePaths.folder(of: readable)
            let sandbox = SandboxSettings(grants: ["test.hostile": [.read(folder: assets)] + grants])
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [plugins.path]), cacheFolder: nil, limits: limits, sandbox: sandbox),
                logger: quietLogger)
            host.loadPlugins()
            return host
        }

        /// The secret as the test left it: its words, its mode, its owner and its times.
        func secretIsUntouched() -> Bool {
            var information = stat()
            return (try? String(contentsOfFile: secret, encoding: .utf8)) == "the secret\n" && stat(secret, &information) == 0
                && information.st_mode & 0o7777 == 0o600 && information.st_uid == geteuid()
                && information.st_mtim.tv_sec > 1_000_000_000
        }
    }

    static func probe(_ host: GraftHost, _ act: String, _ target: String) throws -> (text: String, warnings: [GraftWarning]) {
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": .string(act), "target": .string(target)])
        defer { probe.close() }
        let text = try probe.render().text
        return (text, probe.warnings)
    }

    static func reports(_ warnings: [GraftWarning], _ words: String) -> Bool {
        warnings.contains { $0.code == .sandboxDenied && $0.message.contains("'test.hostile'") && $0.message.contains(words) }
    }

    @Test("each act a render tries is refused and reported; the target is untouched; the host and the echo plugin go on", arguments: HostileCategory.allCases)
    func renders(category: HostileCategory) throws {
        let setting = try Setting()
        let host = setting.host()
        #expect(host.failures.isEmpty, "\(host.failures)")
        for act in HostileCorpus.acts(in: category) {
            let (text, warnings) = try Self.probe(host, act.name, setting.target(act))
            #expect(text.hasPrefix("\(act.name): refused"), "\(act): \(text)")
            if let words = act.reported {
                #expect(Self.reports(warnings, words), "\(act) is reported with '\(words)': \(warnings)")
            }
        }
        #expect(setting.secretIsUntouched())
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "still here"]).render().text == "echo:still here")
    }

    @Test("a validator and an action that try an act of each category are refused it, and the host names the plugin", arguments: HostileCategory.allCases)
    func validatorsAndActions(category: HostileCategory) throws {
        let setting = try Setting()
        let host = setting.host()
        let file = setting.plugins.appendingPathComponent("libhostile.so").path
        let acts = HostileCorpus.acts(in: category).filter { $0.reported != nil }
        let (first, second) = (acts[0], acts[acts.count - 1])
        let validated = try host.validate("probe", value: .string(first.name), params: [setting.target(first)])
        #expect(!validated.isValid && validated.message?.hasPrefix("\(first.name): refused") == true, "\(String(describing: validated.message))")
        let action = try host.invokeAction("probe", params: ["act": .string(second.name), "target": .string(setting.target(second))])
        #expect(action.variables["outcome"]?.stringValue?.hasPrefix("\(second.name): refused") == true, "\(action.variables)")
        let denials = host.sandboxDenials(ofPluginAt: file).map(\.act)
        for act in [first, second] {
            #expect(denials.contains { $0.contains(act.reported!) }, "\(act): \(denials)")
        }
        #expect(setting.secretIsUntouched())
    }

    @Test(
        "a constructor or an init that tries an act of each category cannot stop the scan: the plugin loads, the host hears of it",
        arguments: ["CONSTRUCTOR", "INIT"], HostileCorpus.atLoad)
    func atLoad(place: String, act: HostileAct) throws {
        let setting = try Setting { secret in
            let target = act.target == .secret ? secret : act.target.fixedText ?? "x"
            return ["HOSTILE_\(place)_ACT": "\"\(act.name)\"", "HOSTILE_\(place)_TARGET": "\"\(target)\""]
        }
        let host = setting.host()
        #expect(host.failures.isEmpty, "\(act): \(host.failures)")
        #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.hostile"], "\(act)")
        let file = setting.plugins.appendingPathComponent("libhostile.so").path
        let denials = host.sandboxDenials(ofPluginAt: file).map(\.act)
        #expect(denials.contains { $0.contains(act.reported!) }, "\(act) in \(place): \(denials)")
        #expect(try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]).render().text == "echo:x")
        #expect(setting.secretIsUntouched())
    }

    @Test("with one port granted, no other way to connect widens it: implicit connects, MPTCP, other families and ports are refused")
    func aroundAPortGrant() throws {
        let setting = try Setting()
        let granted = try LoopbackServer(reply: "granted")
        let host = setting.host(grants: [.connect(ports: [granted.port])])
        #expect(try Self.probe(host, "connect", String(granted.port)).text == "connect: ok granted")
        for act in HostileCorpus.aroundAPortGrant {
            let (text, warnings) = try Self.probe(host, act.name, setting.target(act))
            #expect(text.hasPrefix("\(act.name): refused"), "\(act): \(text)")
            #expect(Self.reports(warnings, act.reported!), "\(act): \(warnings)")
        }
    }

    @Test("a second thread that swaps a path between the host's look and the kernel's read changes nothing: chmod is never allowed by path")
    func racingPaths() throws {
        let setting = try Setting()
        let host = setting.host(limits: IsolationLimits(call: .seconds(30)))
        let (text, warnings) = try Self.probe(host, "meta_race", setting.secret)
        #expect(text.hasPrefix("meta_race: refused"), "\(text)")
        #expect(Self.reports(warnings, "(chmod)"), "\(warnings)")
        #expect(setting.secretIsUntouched())
    }

    @Test("what a component may do to its own files keeps working: fchmod and futimens on a file it opened for writing, a watch on its folder")
    func ownFilesKeepWorking() throws {
        let setting = try Setting()
        let host = setting.host()
        for (act, expected) in [("own_fchmod", "own_fchmod: ok mode 0600"), ("own_futimens", "own_futimens: ok mtime 1000000000")] {
            let (text, warnings) = try Self.probe(host, act, "x")
            #expect(text == expected)
            #expect(!warnings.contains { $0.code == .sandboxDenied }, "\(warnings)")
        }
        #expect(try Self.probe(host, "see_inotify_own", "x").text.hasPrefix("see_inotify_own: ok watch"))
        #expect(try Self.probe(host, "new_futex_waitv", "x").text.hasPrefix("new_futex_waitv: ok"))
        #expect(try Self.probe(host, "new_mseal", "x").text.hasPrefix("new_mseal: ok"))
    }

    @Test("a child sees nothing of the machine: only itself in /proc, no socket of the machine's without a grant, and not root")
    func seesLittle() throws {
        let setting = try Setting()
        let host = setting.host()
        #expect(try Self.probe(host, "see_proc_pid", String(getpid())).text == "see_proc_pid: refused ENOENT")
        #expect(try Self.probe(host, "see_proc_pid", "1").text == "see_proc_pid: refused ENOENT")
        let sockets = try Self.probe(host, "net_proc_net", String(setting.server.port)).text
        #expect(sockets.hasPrefix("net_proc_net: ok 0 sockets"), "\(sockets)")
        #expect(!sockets.contains("port-seen"))
        let user = try Self.probe(host, "see_uid", "x").text
        #expect(!user.contains("Uid:\t0") && !user.contains("Uid: 0 ") && !user.hasSuffix("getuid 0"), "\(user)")
        // A plugin granted a port keeps the host's network, and sees it.
        let granted = setting.host(grants: [.connect(ports: [setting.server.port])])
        #expect(try Self.probe(granted, "net_proc_net", String(setting.server.port)).text.contains("port-seen"))
    }
}
