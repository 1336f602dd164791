import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The processes the benchmarks start: the C compiler, Python, and the
/// commands they time. Started through posix_spawn (`graft_spawn`): stdin
/// from /dev/null, descriptor 3 `channel` (/dev/null when none), stdout and
/// stderr to `output` (/dev/null when none).
enum BenchProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func start(
        _ path: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        channel: Int32 = -1, output: Int32 = -1
    ) throws(Failure) -> pid_t {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var channel = channel
        var nullChannel: Int32 = -1
        if channel < 0 {
            nullChannel = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard nullChannel >= 0 else { throw Failure(description: "cannot open /dev/null: \(String(cString: strerror(errno)))") }
            channel = nullChannel
        }
        defer { if nullChannel >= 0 { close(nullChannel) } }
        var pid: pid_t = 0
        let error = graft_spawn(path, argv, envp, channel, -1, output, &pid)
        guard error == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(error)))") }
        return pid
    }

    /// Reaps `pid`: its exit status, or 128 + the signal that killed it, as a shell says it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Reaps `pid` once it exits, as `wait` does, checking every 50 µs (fine
    /// enough for the process timings); nil if it is still running at
    /// `deadline` (it is left to the caller to stop).
    static func wait(_ pid: pid_t, until deadline: ContinuousClock.Instant) -> Int32? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if reaped < 0 && errno != EINTR { return -1 }
            if ContinuousClock.now >= deadline { return nil }
            usleep(50)
        }
    }

    /// Asks `pid` to stop (SIGTERM), waits up to `timeout` for it to exit,
    /// then kills it (SIGKILL); reaped in every case.
    static func stop(_ pid: pid_t, within timeout: Duration) {
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = wait(pid)
    }

    /// Compiles a C program that includes graft.h from `source`, with `-O2`,
    /// into `folder` as `name`; `what` names it in the error.
    static func compileProgram(_ source: String, named name: String, into folder: URL, what: String) throws -> URL {
        guard let include = GraftHeader.includeFolder() else { throw BenchPlugin.CompileError(description: "graft.h not found") }
        let file = folder.appendingPathComponent(name + ".c")
        try Data(source.utf8).write(to: file)
        let output = folder.appendingPathComponent(name)
        guard compileC(["-O2", "-std=c11", "-I", include, file.path, "-o", output.path, "-ldl"]) else {
            throw BenchPlugin.CompileError(description: "cc failed to build \(what) (is a C compiler installed?)")
        }
        return output
    }

    /// `cc` with `arguments` (found on PATH), its output dropped; whether it succeeded.
    static func compileC(_ arguments: [String]) -> Bool {
        guard let pid = try? start("/usr/bin/env", ["cc"] + arguments) else { return false }
        guard let status = wait(pid, until: .now + .seconds(120)) else {
            stop(pid, within: .seconds(1))
            return false
        }
        return status == 0
    }
}

/// Lines from a descriptor, as they arrive.
struct LineReader {
    let descriptor: Int32
    var buffer: [UInt8] = []

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
