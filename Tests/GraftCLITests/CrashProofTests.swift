import Foundation
import GraftTestSupport
import Testing

/// A folder holding one good plugin and plugins that crash, exit or hang
/// while loading: every command keeps working and names the bad ones.
@Suite("Crash-proof discovery from the CLI")
struct CrashProofTests {
    static let bad = ["bad_crash_init", "bad_crash_constructor", "bad_exit_constructor", "bad_exit_init", "bad_abort_init", "bad_hang_init"]

    static func folder(_ scratch: borrowing Scratch) throws -> URL {
        for name in bad + ["good_echo", "good_thread"] { try Fixtures.build(name, into: scratch.url) }
        return scratch.url
    }

    @Test("graft list lists the good plugins and every bad one with its code, and exits 0")
    func list() throws {
        let scratch = try Scratch()
        let folder = try Self.folder(scratch)
        let result = try graft("list", "--json", "--only-plugin-path", "--plugin-path", folder.path, "--scan-timeout", "0.5")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let ids = Set((json["plugins"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(ids == ["test.echo", "test.thread"])
        let failures = (json["failures"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) {
            $0[(($1["path"] as? String ?? "") as NSString).lastPathComponent] = $1["code"] as? String
        }
        for name in Self.bad {
            #expect(failures["lib\(name).so"] == (name == "bad_hang_init" ? "plugin_timeout" : "plugin_crashed"), "\(name)")
        }
    }

    @Test("graft try and graft validate use the good plugin beside the bad ones")
    func tryAndValidate() throws {
        let scratch = try Scratch()
        let folder = try Self.folder(scratch)
        let tried = try graft("try", "echo", "--json", "--only-plugin-path", "--plugin-path", folder.path, "--scan-timeout", "0.5")
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect((try parseJSON(tried.stdout) as? [String: Any])?["output"] as? String == "echo:hello")
        let validated = try graft("validate", "is_even", "4", "--only-plugin-path", "--plugin-path", folder.path, "--scan-timeout", "0.5")
        #expect(validated.status == 0, "\(validated.stderr)")
    }

    @Test("graft check of a plugin whose constructor calls exit(0) fails with plugin_crashed, never a silent success")
    func checkExitZero() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("bad_exit_constructor", into: scratch.url)
        let result = try graft("check", plugin.path, "--json")
        #expect(result.status == 1)
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let problem = try #require((json["problems"] as? [[String: Any]])?.first)
        #expect(problem["code"] as? String == "plugin_crashed")
        #expect((problem["message"] as? String)?.contains("exited with status 0") == true)
    }

    @Test("killing graft while a plugin hangs in the scanner kills the scanner too")
    func scannerDiesWithParent() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("bad_hang_init", into: scratch.url)
        let process = Process()
        process.executableURL = try BuildProducts.graft()
        process.arguments = ["check", plugin.path, "--scan-timeout", "120"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Wait for the scanner child to appear, with a deadline.
        var scanner: pid_t?
        let deadline = ContinuousClock.now + .seconds(20)
        while scanner == nil, ContinuousClock.now < deadline {
            scanner = Self.children(of: process.processIdentifier).first
            if scanner == nil { usleep(10_000) }
        }
        let child = try #require(scanner, "the scanner started")
        // SIGKILL: graft gets no chance to clean up, so only the kernel's
        // parent-death signal can stop the scanner.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // PR_SET_PDEATHSIG: the child gets SIGKILL; it is then reaped by init.
        let gone = ContinuousClock.now + .seconds(10)
        while Self.isAlive(child), ContinuousClock.now < gone { usleep(10_000) }
        #expect(!Self.isAlive(child), "the scanner outlived graft")
    }

    static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// Alive and not a zombie.
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        guard let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }
}

@Suite("graft lock and --locked")
struct LockCommandTests {
    @Test("graft lock pins the plugins on the path; --locked refuses a rebuilt one with hash_mismatch")
    func lockThenLocked() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        let lock = scratch.file("graft.lock").path
        let common = ["--only-plugin-path", "--plugin-path", folder.path, "--lock-file", lock]
        let locked = try runCommand(try BuildProducts.graft(), ["lock", "--json"] + common)
        #expect(locked.status == 0, "\(locked.stderr)")
        let pins = try #require((try parseJSON(locked.stdout) as? [String: Any])?["plugins"] as? [[String: Any]])
        #expect(pins.count == 1 && pins.first?["id"] as? String == "test.echo" && (pins.first?["sha256"] as? String)?.count == 64)

        let fine = try runCommand(try BuildProducts.graft(), ["try", "echo", "--locked"] + common)
        #expect(fine.status == 0, "\(fine.stderr)")

        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v2:\""])
        let listed = try runCommand(try BuildProducts.graft(), ["list", "--json", "--locked"] + common)
        let failures = try #require((try parseJSON(listed.stdout) as? [String: Any])?["failures"] as? [[String: Any]])
        #expect(failures.first?["code"] as? String == "hash_mismatch")
        let refused = try runCommand(try BuildProducts.graft(), ["try", "echo", "--locked"] + common)
        #expect(refused.status != 0)
    }
}

@Suite("The registry cache from the CLI")
struct CacheCommandTests {
    @Test("with a warm cache, list, inspect, debug plugins and check --flow run no plugin code")
    func warmCacheRunsNothing() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let marker = scratch.file("marker")
        try Fixtures.build("good_marker", into: folder, defines: ["MARKER_PATH": "\"\(marker.path)\""])
        try Fixtures.build("good_echo", into: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratch.file("cache").path
        // The marker's trace is a file it writes, which the sandbox refuses (SandboxTests).
        let common = ["--only-plugin-path", "--plugin-path", folder.path, "--sandbox", "off"]
        func traces() -> Int { ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").split(separator: "\n").count }

        let first = try runCommand(try BuildProducts.graft(), ["list"] + common, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(traces() == 1, "scanned once, in the scanner")
        for command in [["list", "--json"], ["inspect", "echo"], ["debug", "plugins"],
                        ["check", "--flow", Fixtures.root.appendingPathComponent("Examples/flows/checkout.json").path]] {
            let result = try runCommand(try BuildProducts.graft(), command + common, environment: environment)
            #expect(result.status != 2, "\(command): \(result.stderr)")
            #expect(traces() == 1, "\(command.joined(separator: " ")) ran plugin code")
        }
        // Using the plugin maps it, in graft's own process.
        let validated = try runCommand(try BuildProducts.graft(), ["validate", "marker_ok", "1"] + common, environment: environment)
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(traces() == 2)
    }

    @Test("a plugin whose thread outlives it does not crash graft at exit: nothing is unloaded")
    func threadAtExit() throws {
        let scratch = try Scratch()
        try Fixtures.build("good_thread", into: scratch.url)
        try Fixtures.build("good_echo", into: scratch.url)
        for _ in 0..<5 {
            // In process and mapped at start, so the thread runs in graft itself.
            let result = try graft("list", "--no-scanner", "--no-cache", "--only-plugin-path", "--plugin-path", scratch.url.path)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("test.thread"))
        }
    }
}

@Suite("Isolated plugins from the CLI")
struct IsolatedCommandTests {
    static func folder(_ scratch: borrowing Scratch, faultIn place: String) throws -> URL {
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        try Fixtures.build("bad_runtime", into: folder, defines: ["FAULT_IN": "\"\(place)\""])
        return folder
    }

    @Test("graft try of a component whose render crashes reports plugin_crashed and exits; graft survives")
    func tryCrash() throws {
        let scratch = try Scratch()
        let folder = try Self.folder(scratch, faultIn: "render")
        let result = try graft("try", "fragile", "--json", "--only-plugin-path", "--plugin-path", folder.path)
        #expect(result.status != 0 && result.status < 128, "graft itself did not die: \(result.status)")
        #expect((result.stdout + result.stderr).contains("plugin_crashed"))
        let good = try graft("try", "echo", "--json", "--only-plugin-path", "--plugin-path", folder.path)
        #expect(good.status == 0, "\(good.stderr)")
        // --in-process opts out: the crash is graft's own.
        let inProcess = try graft("try", "fragile", "--in-process", "--only-plugin-path", "--plugin-path", folder.path)
        #expect(inProcess.status >= 128 || inProcess.status == -1 || inProcess.status == 11, "in process, the crash takes graft down: \(inProcess.status)")
    }

    @Test("graft validate of a validator that crashes reports plugin_crashed with exit 2")
    func validateCrash() throws {
        let scratch = try Scratch()
        let folder = try Self.folder(scratch, faultIn: "validate")
        let result = try graft("validate", "fragile_check", "x", "--only-plugin-path", "--plugin-path", folder.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("plugin_crashed"))
        #expect(try graft("validate", "is_even", "2", "--only-plugin-path", "--plugin-path", folder.path).status == 0)
    }
}
