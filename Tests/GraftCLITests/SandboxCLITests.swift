import Foundation
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The sandbox from the command line, in the CLI's default mode: hostile
/// plugins are refused what they try and reported, `graft list` survives
/// them, the kernel's gaps are said, and all of it holds for a user who is
/// not root.
@Suite("The sandbox from the CLI")
struct SandboxCLITests {
    /// A folder with the hostile fixture (built with `defines`) and the echo plugin.
    static func plugins(_ scratch: borrowing Scratch, defines: [String: String] = [:]) throws -> URL {
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder, defines: defines)
        try Fixtures.build("good_echo", into: folder)
        return folder
    }

    static func graft(_ arguments: [String], plugins folder: URL, prefix: [String] = []) throws -> CommandResult {
        let graft = try BuildProducts.graft().path
        let command = prefix + [graft] + arguments + ["--only-plugin-path", "--plugin-path", folder.path, "--no-cache"]
        return try runCommand(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), timeout: .seconds(120))
    }

    static func tryProbe(_ act: String, _ target: String, plugins folder: URL, prefix: [String] = [], extra: [String] = []) throws -> CommandResult {
        try graft(["try", "probe", "--config", #"{"act":"\#(act)","target":"\#(target)"}"#] + extra, plugins: folder, prefix: prefix)
    }

    @Test("graft try, by default: a render that reads a secret, kills graft or starts a shell is refused, and the output names sandbox_denied")
    func tryRefuses() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let secret = scratch.file("secret")
        try "the secret\n".write(to: secret, atomically: false, encoding: .utf8)
        chmod(secret.path, 0o600)
        for (act, target, reported) in [
            ("read", secret.path, "read \(secret.path)"), ("kill_parent", "", "send signal 9 to process"),
            ("exec", "", "start a new process"), ("connect", "22", "open a TCP socket"),
        ] {
            let result = try Self.tryProbe(act, target, plugins: folder)
            #expect(result.status == 0, "\(act): \(result.stderr)")
            #expect(result.stdout.contains("\(act): refused"), "\(act): \(result.stdout)")
            #expect(result.stdout.contains("sandbox_denied: the sandbox refused plugin 'test.hostile': \(reported)"), "\(act): \(result.stdout)")
        }
    }

    @Test("graft try leaves no private folder of its children behind, and the next graft sweeps away a killed one's")
    func privateFoldersGo() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let temporary = scratch.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        // Every user's child folders are in a folder of its own there.
        let children = temporary.appendingPathComponent("graft-\(geteuid())").path
        func childFolders() throws -> [String] {
            guard FileManager.default.fileExists(atPath: children) else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: children).filter { $0.hasPrefix("graft-child-") }
        }
        let common = ["--only-plugin-path", "--plugin-path", folder.path, "--no-cache"]
        let tried = try runCommand(BuildProducts.graft(), ["try", "echo"] + common, environment: environment, timeout: .seconds(120))
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(try childFolders() == [])

        // Killed while its runner sleeps in a render: the folders stay, and the next graft removes them.
        let killed = Process()
        killed.executableURL = try BuildProducts.graft()
        killed.arguments = ["try", "probe", "--config", #"{"act":"sleep","target":"60000"}"#, "--call-timeout", "90"] + common
        killed.environment = environment
        killed.standardOutput = FileHandle.nullDevice
        killed.standardError = FileHandle.nullDevice
        try killed.run()
        let started = try eventually(timeout: .seconds(60)) { try childFolders().count >= 2 }
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        #expect(started, "no private folder appeared")
        let left = try childFolders()
        #expect(!left.isEmpty)
        // A sweep leaves folders younger than 2 s: each graft runs one as its first child starts.
        let swept = try eventually(timeout: .seconds(60)) {
            _ = try runCommand(BuildProducts.graft(), ["try", "echo"] + common, environment: environment, timeout: .seconds(120))
            return try childFolders().isEmpty
        }
        #expect(swept, "left: \((try? childFolders()) ?? [])")

        // As a user who is not root: the same, in that user's own folder, gone with the last host.
        guard geteuid() == 0 else { return }
        let theirs = scratch.url.appendingPathComponent("nobody-tmp")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
        chown(theirs.path, 65534, 65534)
        chmod(scratch.url.path, 0o755)
        let nobody = [
            "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env", "/usr/bin/env",
            "TMPDIR=\(theirs.path)",
        ]
        let asNobody = try Self.graft(["try", "echo"], plugins: folder, prefix: nobody)
        #expect(asNobody.status == 0, "\(asNobody.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: theirs.path) == [])
    }

    @Test("graft try shows a render's escape codes and NULs written out, its lines kept")
    func renderIsEscaped() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let result = try Self.tryProbe("render_escape", "", plugins: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("before \\u{1B}]0;pwned\\u{7}\\u{1B}[2J and a NUL \\u{0} after\nsecond line"), "\(result.stdout)")
        #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control character reaches the terminal")
    }

    @Test("graft list survives a plugin whose constructor kills its parent, lists every plugin, and says which sandbox is in force")
    func listSurvivesConstructor() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch, defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"kill_parent\""])
        let result = try Self.graft(["list", "--log-level", "warning"], plugins: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("test.hostile 1.0.0") && result.stdout.contains("test.echo 1.0.0"), "\(result.stdout)")
        #expect(result.stdout.contains("sandbox: enforced: Landlock ABI"), "\(result.stdout)")
        #expect(result.stderr.contains("sandbox_denied: the sandbox refused plugin 'test.hostile' during its scan: send signal 9"), "\(result.stderr)")
    }

    @Test("without Landlock: enforced runs no plugin code (sandbox_unavailable, naming it), best-effort runs plugins with one warning")
    func withoutLandlock() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let wrapper = scratch.file("without_landlock")
        let build = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-o", wrapper.path, Fixtures.root.appendingPathComponent("Tests/Fixtures/programs/without_landlock.c").path, "-lseccomp"])
        try #require(build.status == 0, "\(build.stderr)")

        let enforced = try Self.graft(["list", "--json"], plugins: folder, prefix: [wrapper.path])
        #expect(enforced.stderr.contains("error: sandbox_unavailable: this system cannot sandbox plugins (missing: Landlock"), "\(enforced.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(enforced.stdout.utf8)) as? [String: Any])
        #expect((report["plugins"] as? [Any])?.isEmpty == true, "no plugin loads")
        let codes = (report["failures"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["sandbox_unavailable", "sandbox_unavailable"], "\(enforced.stdout)")
        #expect((report["sandbox"] as? [String: Any])?["missing"] as? String != "")

        let bestEffort = try Self.tryProbe("kill_parent", "", plugins: folder, prefix: [wrapper.path], extra: ["--sandbox", "best-effort"])
        #expect(bestEffort.status == 0, "\(bestEffort.stderr)")
        #expect(bestEffort.stderr.contains("warning: sandbox_unavailable: plugins run with a partial sandbox (missing: Landlock"))
        #expect(bestEffort.stdout.contains("kill_parent: refused EPERM"), "seccomp still holds: \(bestEffort.stdout)")
    }

    @Test("as a user who is not root (setpriv nobody): the same refusals, the file is that user's own")
    func notRoot() throws {
        guard geteuid() == 0 else { return }  // only root can become another user; CI runs as root
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        chmod(scratch.url.path, 0o755)
        // A file nobody owns and may read: only the sandbox stands between the plugin and it.
        let secret = scratch.file("nobodys-secret")
        try "nobody's secret\n".write(to: secret, atomically: false, encoding: .utf8)
        chown(secret.path, 65534, 65534)
        chmod(secret.path, 0o600)
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env"]
        let read = try Self.tryProbe("read", secret.path, plugins: folder, prefix: nobody)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("read: refused EACCES"), "\(read.stdout) \(read.stderr)")
        #expect(read.stdout.contains("sandbox_denied"), "\(read.stdout)")
        let kill = try Self.tryProbe("kill_parent", "", plugins: folder, prefix: nobody)
        #expect(kill.stdout.contains("kill_parent: refused EPERM"), "\(kill.stdout) \(kill.stderr)")
        let trace = try Self.tryProbe("ptrace_parent", "", plugins: folder, prefix: nobody)
        #expect(trace.stdout.contains("ptrace_parent: refused EPERM"), "\(trace.stdout) \(trace.stderr)")
    }

    static let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env"]

    @Test("graft try, as root and as nobody: a plugin that breaks its shared-memory ring is stopped for it; one that shrinks it cannot", arguments: [false, true])
    func ringFromTheCommandLine(asNobody: Bool) throws {
        guard !asNobody || geteuid() == 0 else { return }
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let folder = try Self.plugins(scratch)
        let prefix = asNobody ? Self.nobody : []
        let broken = try Self.tryProbe("ring_garbage", "", plugins: folder, prefix: prefix)
        #expect(broken.stderr.contains("broke the protocol"), "\(broken.stdout) \(broken.stderr)")
        #expect(!broken.stdout.contains("not killed"), "\(broken.stdout)")
        let shrunk = try Self.tryProbe("ring_truncate", "", plugins: folder, prefix: prefix)
        #expect(shrunk.status == 0, "\(shrunk.stderr)")
        #expect(shrunk.stdout.contains("ring_truncate: refused"), "\(shrunk.stdout) \(shrunk.stderr)")
    }

    @Test(
        "graft try and graft list, as root and as nobody: acts of every category of the hostile corpus are refused, reported, and change nothing",
        arguments: [false, true])
    func corpusFromTheCommandLine(asNobody: Bool) throws {
        guard !asNobody || geteuid() == 0 else { return }
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let secret = scratch.file("secret")
        try "the secret\n".write(to: secret, atomically: false, encoding: .utf8)
        // As nobody the file is nobody's own: only the sandbox stands between the plugin and it.
        if asNobody { chown(secret.path, 65534, 65534) }
        chmod(secret.path, 0o600)
        let prefix = asNobody ? Self.nobody : []
        func target(_ act: HostileAct) -> String {
            act.target == .secret ? secret.path : act.target == .hostProcess ? "1" : act.target == .port ? "4444" : act.target.fixedText ?? "x"
        }
        let folder = try Self.plugins(scratch)
        for category in HostileCategory.allCases {
            let acts = HostileCorpus.acts(in: category).filter { $0.reported != nil && $0.target != .readable }
            for act in [acts[0], acts[acts.count / 2], acts[acts.count - 1]] {
                let result = try Self.tryProbe(act.name, target(act), plugins: folder, prefix: prefix)
                #expect(result.status == 0, "\(act): \(result.stderr)")
                #expect(result.stdout.contains("\(act.name): refused"), "\(act): \(result.stdout)")
                #expect(result.stdout.contains("sandbox_denied: the sandbox refused plugin 'test.hostile'") && result.stdout.contains(act.reported!),
                    "\(act): \(result.stdout)")
            }
        }
        // At scan time: a constructor of each category's first act; graft list lives and lists both plugins.
        for category in HostileCategory.allCases {
            let act = HostileCorpus.acts(in: category).first { $0.reported != nil && $0.target != .readable }!
            let scanned = scratch.url.appendingPathComponent("scan-\(category)")
            try Fixtures.build(
                "hostile", into: scanned, defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"\(act.name)\"", "HOSTILE_CONSTRUCTOR_TARGET": "\"\(target(act))\""])
            try Fixtures.build("good_echo", into: scanned)
            let listed = try Self.graft(["list", "--log-level", "warning"], plugins: scanned, prefix: prefix)
            #expect(listed.status == 0, "\(act): \(listed.stderr)")
            #expect(listed.stdout.contains("test.hostile 1.0.0") && listed.stdout.contains("test.echo 1.0.0"), "\(act): \(listed.stdout)")
            #expect(listed.stderr.contains("sandbox_denied: the sandbox refused plugin 'test.hostile' during its scan") && listed.stderr.contains(act.reported!),
                "\(act): \(listed.stderr)")
        }
        // What a component may do to its own files keeps working, done by the host on its behalf.
        for (act, expected) in [("own_fchmod", "own_fchmod: ok mode 0600"), ("own_futimens", "own_futimens: ok mtime"), ("see_inotify_own", "see_inotify_own: ok watch")] {
            let result = try Self.tryProbe(act, "x", plugins: folder, prefix: prefix)
            #expect(result.stdout.contains(expected) && !result.stdout.contains("sandbox_denied"), "\(act): \(result.stdout)")
        }
        var information = stat()
        #expect(stat(secret.path, &information) == 0 && information.st_mode & 0o7777 == 0o600)
        #expect(try String(contentsOf: secret, encoding: .utf8) == "the secret\n")
    }

    @Test(
        "what a plugin leaves (a tree deeper than PATH_MAX, 000 and 0555 folders, 10,000 files, 8 GiB) is gone once graft exits, with namespaces and without, as root and as nobody",
        arguments: [(false, false), (true, false), (false, true), (true, true)])
    func nothingLeftBehind(asNobody: Bool, withoutNamespaces: Bool) throws {
        guard !asNobody || geteuid() == 0 else { return }
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let folder = try Self.plugins(scratch)
        let temporary = scratch.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        if asNobody { chown(temporary.path, 65534, 65534) }
        var prefix = asNobody ? Self.nobody + ["/usr/bin/env", "TMPDIR=\(temporary.path)"] : ["/usr/bin/env", "TMPDIR=\(temporary.path)"]
        if withoutNamespaces {
            let wrapper = scratch.file("without_namespaces")
            let build = try runCommand(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["cc", "-o", wrapper.path, Fixtures.root.appendingPathComponent("Tests/Fixtures/programs/without_namespaces.c").path, "-lseccomp"])
            try #require(build.status == 0, "\(build.stderr)")
            chmod(wrapper.path, 0o755)
            prefix = [wrapper.path] + prefix
        }
        // Without namespaces the private folder is on disk, under a quota the host checks: fewer files do.
        let acts = [
            ("res_deep_tree", "x", "res_deep_tree: ok"), ("res_modes", "x", "res_modes:"),
            ("res_many_files", withoutNamespaces ? "5000" : "10000", withoutNamespaces ? "res_many_files: refused EDQUOT" : "res_many_files: refused ENOSPC"),
            ("res_fill", "8192", withoutNamespaces ? "res_fill: refused EDQUOT" : "res_fill: refused ENOSPC"),
        ]
        for (act, target, expected) in acts {
            let result = try Self.tryProbe(act, target, plugins: folder, prefix: prefix, extra: ["--call-timeout", "60", "--log-level", "warning"])
            #expect(result.status == 0, "\(act): \(result.stderr)")
            #expect(result.stdout.contains(expected), "\(act): \(result.stdout)")
            if withoutNamespaces, act == "res_fill" {
                #expect(result.stdout.contains("plugin_storage_limit: plugin 'test.hostile' is at its storage limit"), "\(result.stdout)")
                #expect(result.stderr.contains("sandbox_unavailable: plugins run without part of their isolation"), "\(result.stderr)")
            }
            let left = (FileManager.default.enumerator(atPath: temporary.path)?.allObjects as? [String]) ?? []
            #expect(left.isEmpty, "\(act) left \(left.count) entries in TMPDIR: \(left.prefix(3))")
        }
    }

    @Test("graft list over the system's library folder: a thousand shared libraries, none a plugin, each refused for what it is, and graft lives")
    func systemLibraryFolder() throws {
        let folder = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"].first {
            FileManager.default.fileExists(atPath: $0)
        }
        let listed = try runCommand(
            BuildProducts.graft(), ["list", "--json", "--only-plugin-path", "--plugin-path", try #require(folder), "--no-cache"],
            timeout: .seconds(300))
        #expect(listed.status == 0, "\(listed.stderr.suffix(2000))")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let failures = try #require(report["failures"] as? [[String: Any]])
        #expect(failures.count > 50, "\(failures.count) files refused")
        let codes = Set(failures.compactMap { $0["code"] as? String })
        #expect(codes.isSubset(of: ["entry_symbol_missing", "not_a_shared_library", "untrusted_plugin", "invalid_file_name", "dlopen_failed", "plugin_too_large"]), "\(codes)")
        #expect(!listed.stderr.contains("sandbox_denied") && !listed.stderr.contains("plugin_crashed"), "\(listed.stderr.suffix(2000))")
    }

    @Test("a huge data folder, as nobody: writes past its limit fail, plugin_storage_limit is said, the folder stays under it", arguments: [false, true])
    func dataFolderLimit(asNobody: Bool) throws {
        guard !asNobody || geteuid() == 0 else { return }
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let folder = try Self.plugins(scratch)
        let data = scratch.url.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        if asNobody { chown(data.path, 65534, 65534) }
        let prefix = (asNobody ? Self.nobody : []) + ["/usr/bin/env", "XDG_DATA_HOME=\(data.path)"]
        let result = try Self.tryProbe(
            "res_fill", "data:8192", plugins: folder, prefix: prefix, extra: ["--grant", "test.hostile=data", "--data-limit", "1", "--call-timeout", "60"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("res_fill: refused EDQUOT"), "\(result.stdout)")
        #expect(result.stdout.contains("plugin_storage_limit: plugin 'test.hostile' is at its storage limit"), "\(result.stdout)")
        let kept = data.appendingPathComponent("graft/plugins/test.hostile")
        let files = (FileManager.default.enumerator(atPath: kept.path)?.allObjects as? [String]) ?? []
        let bytes = files.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: kept.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
        }
        #expect(bytes <= (1 << 20) + (1 << 18), "the folder holds \(bytes) bytes for a limit of 1 MiB")
        let listed = try Self.graft(["list", "--grant", "test.hostile=data", "--data-limit", "1"], plugins: folder, prefix: prefix)
        #expect(listed.stdout.contains("  data: 1 MiB of 1 MiB, in \(kept.path)"), "\(listed.stdout)")
    }

    @Test("a root host whose mounts propagate (shared, as systemd sets them): its children's tmpfs and data folder mounts never reach its namespace")
    func mountsStayInTheChild() throws {
        guard geteuid() == 0 else { return }
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let folder = try Self.plugins(scratch)
        let data = scratch.url.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // In a mount namespace of the test's own, shared like a systemd host's; what graft's children mount while it
        // runs would show in it, and stay there after graft exits.
        let graft = try BuildProducts.graft().path
        let script = #""$@" >/dev/null 2>&1; echo "graft exited $?"; cat /proc/self/mountinfo"#
        let result = try runCommand(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            ["--mount", "--propagation", "shared", "/bin/sh", "-c", script, "sh", "/usr/bin/env", "XDG_DATA_HOME=\(data.path)", graft, "try", "probe",
             "--config", #"{"act":"data","target":"kept.txt"}"#, "--grant", "test.hostile=data", "--only-plugin-path", "--plugin-path", folder.path,
             "--no-cache"],
            timeout: .seconds(120))
        try #require(result.status == 0 && result.stdout.contains("graft exited 0"), "\(result.stdout.prefix(300)) \(result.stderr)")
        let leaked = result.stdout.split(separator: "\n").filter { $0.contains("graft-child") || $0.contains(data.path) }
        #expect(leaked.isEmpty, "mounts of graft's children left in its namespace: \(leaked)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("graft/plugins/test.hostile/kept.txt").path))
    }

    @Test("graft list with a mistyped --grant id, or a grant the plugin does not declare, says so on stderr (grant_unused), and lists as before")
    func mistypedGrant() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let listed = try Self.graft(["list", "--grant", "test.hostlie=network:443", "--grant", "test.echo=network:any"], plugins: folder)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("test.hostile 1.0.0") && listed.stdout.contains("test.echo 1.0.0"), "\(listed.stdout)")
        #expect(
            listed.stderr.contains(
                "warning: grant_unused: network:443 is granted to plugin 'test.hostlie', but no loaded plugin has that id. Did you mean 'test.hostile'?"),
            "\(listed.stderr)")
        #expect(
            listed.stderr.contains("warning: grant_unused: plugin 'test.echo' is granted network:any, which it does not declare (it declares none); granted all the same."),
            "\(listed.stderr)")
    }

    @Test(
        "with the sandbox off, a process a plugin starts with a double fork and setsid dies with its child, as root and as nobody",
        arguments: [false, true])
    func daemonDiesWithItsChild(asNobody: Bool) throws {
        guard !asNobody || geteuid() == 0 else { return }
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        chmod(scratch.url.path, 0o755)
        // The daemon holds a lock on this file while it lives: found by what the test gave it, not among the machine's processes.
        let locks = scratch.url.appendingPathComponent("locks")
        try FileManager.default.createDirectory(at: locks, withIntermediateDirectories: true)
        chmod(locks.path, 0o777)
        let lock = locks.appendingPathComponent("daemon.lock").path
        let prefix = asNobody ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env"] : []
        let result = try Self.tryProbe("daemon", lock, plugins: folder, prefix: prefix, extra: ["--sandbox", "off"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("daemon: ok"), "the plugin started it: \(result.stdout)")
        #expect(!result.stderr.contains("may outlive it"), "the namespaces were available: \(result.stderr)")
        // It answered once the daemon held the lock; graft try has exited: its child's namespace, and the daemon in it, are going or gone.
        let file = open(lock, O_RDONLY | O_CLOEXEC)
        try #require(file >= 0, "the daemon made its lock file")
        defer { close(file) }
        #expect(eventually(timeout: .seconds(10)) { flock(file, LOCK_EX | LOCK_NB) == 0 }, "the daemon holding \(lock) outlived graft try")
    }

    @Test("graft list shows each declared permission, granted or not; graft lock records them")
    func permissionsShownAndLocked() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch, defines: ["HOSTILE_PORT": "4444"])
        let plain = try Self.graft(["list"], plugins: folder)
        #expect(plain.stdout.contains("  permissions:\n    network:4444  not granted  — Talks to its test server.\n    data  not granted  — Keeps what it learns."), "\(plain.stdout)")
        let granted = try Self.graft(["list", "--grant", "test.hostile=network:4444"], plugins: folder)
        #expect(granted.stdout.contains("    network:4444  granted  — Talks to its test server."), "\(granted.stdout)")
        let json = try Self.graft(["list", "--json"], plugins: folder)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let hostile = try #require((report["plugins"] as? [[String: Any]])?.first { $0["id"] as? String == "test.hostile" })
        let permissions = try #require(hostile["permissions"] as? [[String: Any]])
        #expect(permissions.map { $0["permission"] as? String } == ["network:4444", "data"])
        #expect(permissions.allSatisfy { $0["granted"] as? Bool == false && ($0["reason"] as? String)?.isEmpty == false })

        let inspected = try Self.graft(["inspect", "probe"], plugins: folder)
        #expect(inspected.stdout.contains("permission: network:4444  not granted  — Talks to its test server."), "\(inspected.stdout)")
        let debugged = try Self.graft(["debug", "plugins", "--grant", "test.hostile=data"], plugins: folder)
        #expect(debugged.stdout.contains("  permission  data (granted) — Keeps what it learns."), "\(debugged.stdout)")
        #expect(debugged.stdout.contains("  permission  network:4444 (not granted) — Talks to its test server."), "\(debugged.stdout)")

        let lock = scratch.file("graft.lock")
        let locked = try Self.graft(["lock", "--lock-file", lock.path], plugins: folder)
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout.contains("grants: data, network:4444"), "\(locked.stdout)")
        let written = try String(contentsOf: lock, encoding: .utf8)
        #expect(written.contains("\"permissions\" : [\n        \"data\",\n        \"network:4444\"\n      ]"), "\(written)")
    }

    @Test("--grant reads ID=PERMISSION or is a usage error naming it; --in-process and --sandbox off say on stderr that the sandbox is off")
    func grantsAndWarnings() throws {
        let scratch = try Scratch()
        let folder = try Self.plugins(scratch)
        let bad = try Self.graft(["list", "--grant", "test.hostile=network:none"], plugins: folder)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--grant test.hostile=network:none: expected ID=PERMISSION"), "\(bad.stderr)")
        let inProcess = try Self.graft(["list", "--in-process"], plugins: folder)
        #expect(inProcess.stderr.contains("outside the sandbox"), "\(inProcess.stderr)")
        #expect(inProcess.stdout.contains("sandbox: none: plugin code runs in this process"))
        let off = try Self.graft(["list", "--sandbox", "off"], plugins: folder)
        #expect(off.stderr.contains("warning: --sandbox off"), "\(off.stderr)")
        #expect(off.stdout.contains("sandbox: off"))
    }
}
