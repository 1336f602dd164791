import CGraftSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn (`graft_spawn`: stdin, stdout
/// and stderr on /dev/null, nothing else inherited), polled and reaped by
/// its owner. Foundation's `Process` would bring full Foundation into
/// `graft`, which links FoundationEssentials only.
final class SpawnedProcess: @unchecked Sendable {
    // Only the owner's thread touches `status`.
    let pid: pid_t
    private var status: Int32?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(_ path: String, _ arguments: [String]) throws {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard null >= 0 else { throw Failure(description: "cannot open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(null) }
        var pid: pid_t = 0
        let error = graft_spawn(path, argv, envp, null, -1, -1, &pid)
        guard error == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(error)))") }
        self.pid = pid
    }

    /// Whether it still runs (reaping it when it has ended).
    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) { status = raw }
        return status == nil
    }

    /// Its exit status, or 128 + the signal, once it has ended.
    var exitStatus: Int32? {
        guard let raw = status else { return nil }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    /// SIGTERM, then SIGKILL past `grace`; always reaped.
    func stop(grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
    }

    /// Kills every process of this user whose command line has `argument`
    /// (a unique one: a browser profile made for this run). For processes a
    /// child started and left behind, which cannot be waited for.
    static func killAll(withArgument argument: String) {
        let me = getpid()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), pid != me,
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains(argument) { kill(pid, SIGKILL) }
        }
    }
}
