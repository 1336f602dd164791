import CGraftSystem
import Dispatch
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One child process the host owns (a scanner, later a plugin runner): its
/// socket, its output, its life. The child is started with `posix_spawn`
/// (never `fork` in a threaded Swift process) with an explicit descriptor
/// map: descriptor 3 is its end of a socket pair, stdin is /dev/null,
/// stdout and stderr are a pipe the host reads into its log, and nothing else
/// is inherited. It stays in the host's process group and is told to die with
/// the host (`PR_SET_PDEATHSIG`, set by the child itself). The host kills it
/// with SIGKILL past a deadline and always reaps it: no zombies, no leaked
/// descriptors.
package final class ChildProcess: @unchecked Sendable {
    // Used by one thread at a time: the owner (Scanner) serializes access.
    let pid: pid_t
    let executable: String
    private let channel: Int32
    private let output: Int32
    /// The read end of the child's progress pipe (its descriptor 4), or -1.
    private let progress: Int32
    private var received: [UInt8] = []
    private var pendingOutput: [UInt8] = []
    private var reaped: Termination?
    /// Where each read lands first: allocated once per child, not per call.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// How a child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "was killed by signal \(signal) (\(ChildProcess.signalName(signal)))"
            }
        }
    }

    /// What `receive` got.
    package enum Received {
        case frame(Wire.Header, [UInt8])
        /// The child closed its end or died.
        case closed
        case timedOut
        /// The child broke the protocol; it should be killed.
        case violation(String)
    }

    /// Starts `executable` with the host's environment plus `environment`.
    /// With `progress`, the child's descriptor 4 is a pipe whose bytes the
    /// host reads with `latestProgress()` (the scanner's stages: writing a
    /// byte costs the child one system call and wakes nobody).
    init(executable: String, arguments: [String], environment extra: [String: String] = [:], progress: Bool = false) throws(GraftError) {
        self.executable = executable
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw GraftError(.scannerUnavailable, "could not create a socket pair for \(executable): \(String(cString: strerror(errno))).")
        }
        var progressEnds: [Int32] = [-1, -1]
        if progress {
            guard graft_pipe_cloexec(&progressEnds) == 0 else {
                close(pair[0]); close(pair[1])
                throw GraftError(.scannerUnavailable, "could not create a pipe for \(executable): \(String(cString: strerror(errno))).")
            }
            _ = fcntl(progressEnds[0], F_SETFL, fcntl(progressEnds[0], F_GETFL) | O_NONBLOCK)
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard graft_pipe_cloexec(&pipeEnds) == 0 else {
            let reason = String(cString: strerror(errno))
            for descriptor in pair + progressEnds where descriptor >= 0 { close(descriptor) }
            throw GraftError(.scannerUnavailable, "could not create a pipe for \(executable): \(reason).")
        }
        // The child's stdout and stderr never block it: past the pipe's 64 KiB
        // of unread output, its writes fail and the lines are lost, not the child.
        _ = fcntl(pipeEnds[1], F_SETFL, fcntl(pipeEnds[1], F_GETFL) | O_NONBLOCK)
        // The child's ends are dup2'd onto 1-4 by the spawn; the originals
        // stay close-on-exec. Plugins may need the host's environment (their
        // own library path, say).
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["GRAFT_PARENT_PID"] = String(getpid())
        environment["SWIFT_BACKTRACE"] = environment["SWIFT_BACKTRACE"] ?? "enable=no"
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        let (status, pid) = SpawnThread.shared.run { [pair, pipeEnds, progressEnds] in
            Self.spawn(executable, argv, envp, channel: pair[1], side: progressEnds[1], output: pipeEnds[1])
        }
        close(pair[1])
        close(pipeEnds[1])
        if progressEnds[1] >= 0 { close(progressEnds[1]) }
        guard status == 0 else {
            close(pair[0]); close(pipeEnds[0])
            if progressEnds[0] >= 0 { close(progressEnds[0]) }
            throw GraftError(.scannerUnavailable, "could not start \(executable): \(String(cString: strerror(status))).", path: executable)
        }
        self.pid = pid
        channel = pair[0]
        output = pipeEnds[0]
        self.progress = progressEnds[0]
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
    }

    /// How long a new child may take to say hello.
    static let startDeadline = Duration.seconds(10)

    /// Starts a Graft child (`graft-scanner scan|serve …`) and waits for its
    /// `hello`: a child that does not say it within `startDeadline`, or was
    /// built for another ABI or machine, is killed and refused with
    /// `scanner_unavailable`.
    package static func startGraftChild(
        executable: String, arguments: [String], progress: Bool = false, onOutput: (String) -> Void
    ) throws(GraftError) -> ChildProcess {
        let child = try ChildProcess(executable: executable, arguments: arguments, progress: progress)
        try child.awaitHello(onOutput: onOutput)
        return child
    }

    /// Waits for a Graft child's `hello` (see `startGraftChild`); a child that
    /// does not say it, or says it for another ABI or machine, is killed.
    func awaitHello(onOutput: (String) -> Void) throws(GraftError) {
        switch receive(until: .now + Self.startDeadline, onOutput: onOutput) {
        case .frame(let header, let payload) where header.kind == .hello:
            guard let mismatch = Wire.helloMismatch(payload) else { return }
            stop()
            throw GraftError(.scannerUnavailable, "\(executable) is not this host's Graft child: \(mismatch).", path: executable)
        default:
            let ended = stop()
            throw GraftError(
                .scannerUnavailable,
                "\(executable) did not start as a Graft child (no hello within \(Self.startDeadline)); it \(ended).", path: executable)
        }
    }

    /// Lets the child go without waiting for it: it is told there is no more
    /// work now (it then exits), and is reaped on a thread of its own, so a
    /// child unmapping a hundred plugins costs its host no time.
    func finishInBackground() {
        guard reaped == nil else { return }
        shutdown(channel, Int32(SHUT_WR))
        startThread(named: "graft.reap") { _ = self.finish() }
    }

    private static func spawn(_ path: String, _ argv: [String], _ envp: [String], channel: Int32, side: Int32, output: Int32) -> (Int32, pid_t) {
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnvp = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArgv { free(pointer) }
            for pointer in cEnvp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = graft_spawn(path, &cArgv, &cEnvp, channel, side, output, &pid)
        return (status, pid)
    }

    deinit {
        stop()
        close(channel)
        close(output)
        if progress >= 0 { close(progress) }
        scratch.deallocate()
    }

    /// The host's descriptors for this child: its channel and its output (for tests).
    var descriptors: [Int32] { [channel, output] }

    /// The last progress byte the child wrote, reading everything it wrote
    /// since the last call; nil when it wrote nothing since.
    func latestProgress() -> UInt8? {
        guard progress >= 0 else { return nil }
        var latest: UInt8?
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let count = bytes.withUnsafeMutableBytes { read(progress, $0.baseAddress, $0.count) }
            guard count > 0 else { return latest }
            latest = bytes[count - 1]
        }
    }

    // MARK: Talking

    /// Sends one frame, with `descriptor` attached when given. False when the
    /// child is gone.
    @discardableResult
    package func send(_ kind: Wire.Kind, id: UInt32, payload: [UInt8], descriptor: Int32 = -1) -> Bool {
        let frame = Wire.frame(kind, id: id, payload: payload)
        return frame.withUnsafeBytes { graft_send_with_fd(channel, $0.baseAddress, $0.count, descriptor) } == 0
    }

    /// Sends frames already framed, in one write. False when the child is gone.
    func send(frames: [UInt8]) -> Bool {
        frames.withUnsafeBytes { graft_send_with_fd(channel, $0.baseAddress, $0.count, -1) } == 0
    }

    /// The next frame, waiting at most until `deadline`. Lines the child
    /// writes to stdout or stderr meanwhile go to `onOutput`.
    package func receive(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> Received {
        while true {
            if received.count >= Wire.headerSize {
                let header: Wire.Header
                do throws(Wire.Violation) {
                    header = try Wire.header(received[0..<Wire.headerSize])
                } catch {
                    return .violation(error.description)
                }
                if received.count >= Wire.headerSize + header.length {
                    let payload = Array(received[Wire.headerSize..<Wire.headerSize + header.length])
                    received.removeFirst(Wire.headerSize + header.length)
                    return .frame(header, payload)
                }
            }
            let now = ContinuousClock.now
            guard now < deadline else { return .timedOut }
            // A blocking receive with the deadline as the socket's timeout:
            // one system call for the common answer. The child's output pipe
            // never blocks the child (its end is non-blocking), so it is
            // drained here, after each receive, not watched.
            setReceiveTimeout(deadline - now)
            // recv, not recvmsg: no header to copy, and descriptors a child
            // might send are closed by the kernel, never installed here.
            let count = recv(channel, scratch.baseAddress, scratch.count, 0)
            if count > 0 { received.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count])) }
            drainOutput(onOutput)  // reuses `scratch`: after the bytes above are kept
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }  // the deadline decides
                flushOutput(onOutput)
                return .closed
            }
            if count == 0 {
                flushOutput(onOutput)
                return .closed
            }
        }
    }

    /// The socket's receive timeout, set only when it must shrink or was
    /// set for a different deadline (most calls share one: no system call).
    private var receiveTimeout: Duration?

    private func setReceiveTimeout(_ remaining: Duration) {
        // Whole milliseconds, rounded up: never shorter than asked.
        let milliseconds = max(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, 1)
        let wanted = Duration.milliseconds(milliseconds)
        if let receiveTimeout, receiveTimeout == wanted || (receiveTimeout < wanted && wanted - receiveTimeout < .milliseconds(50)) {
            return
        }
        var value = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(channel, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        receiveTimeout = wanted
    }

    private func drainOutput(_ onOutput: (String) -> Void) {
        while true {
            let count = read(output, scratch.baseAddress, scratch.count)
            guard count > 0 else { break }
            pendingOutput.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            while let newline = pendingOutput.firstIndex(of: 10) {
                let line = String(decoding: pendingOutput[..<newline], as: UTF8.self)
                pendingOutput.removeFirst(newline + 1)
                if let peak = Self.peakReport(line) { reportedPeak = peak } else { onOutput(line) }
            }
            // A child that never writes a newline still cannot grow the host.
            if pendingOutput.count > 64 * 1024 { flushOutput(onOutput) }
        }
    }

    private func flushOutput(_ onOutput: (String) -> Void) {
        if !pendingOutput.isEmpty { onOutput(String(decoding: pendingOutput, as: UTF8.self)) }
        pendingOutput.removeAll()
    }

    // MARK: Ending

    /// Kills the child (if it still runs) and reaps it; returns how it ended.
    @discardableResult
    package func stop() -> Termination {
        if let reaped { return reaped }
        kill(pid, SIGKILL)
        return reap(blocking: true)!
    }

    /// Asks the child to leave by closing the channel's sending side, waits
    /// up to `grace`, then kills it.
    @discardableResult
    package func finish(grace: Duration = .milliseconds(200)) -> Termination {
        if let reaped { return reaped }
        shutdown(channel, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            usleep(1000)
        }
        return stop()
    }

    /// How the child ended, once it has: after `receive` says `.closed`, the
    /// child may still be exiting, so this waits up to `grace` before
    /// killing it.
    package func termination(grace: Duration = .seconds(1)) -> Termination {
        if let reaped { return reaped }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            usleep(500)
        }
        return stop()
    }

    /// The child's own peak address space, in bytes, when it died of a crash
    /// signal: the line its crash reporter wrote (`graft_report_peak_on_crash`)
    /// just before. 0 when it exited or was killed (then it is not known).
    /// The kernel's ru_maxrss cannot say it: a child started with posix_spawn
    /// starts at exec from the high-water mark of the host's own memory.
    private(set) var peakMemory: Int = 0
    private var reportedPeak: Int?

    /// The bytes in `graft-child: peak address space N kB`, else nil.
    static func peakReport(_ line: String) -> Int? {
        let prefix = "graft-child: peak address space ", suffix = " kB"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix) else { return nil }
        return Int(line.dropFirst(prefix.count).dropLast(suffix.count)).map { $0 * 1024 }
    }

    /// After the child is gone: its last output, for the crash reporter's line.
    private func readPeakReport() {
        while true {
            let count = read(output, scratch.baseAddress, scratch.count)
            guard count > 0 else { break }
            pendingOutput.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
        let text = String(decoding: pendingOutput, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if let peak = Self.peakReport(String(line)) { reportedPeak = peak }
        }
    }

    private func reap(blocking: Bool) -> Termination? {
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
            if result == pid { break }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            reaped = .exited(-1)  // already reaped elsewhere: nothing left to wait for
            return reaped
        }
        readPeakReport()
        peakMemory = reportedPeak ?? 0
        ImageStore.removeFolders(ofProcess: pid)
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        reaped = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        return reaped
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGILL: "SIGILL"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGTRAP: "SIGTRAP"
        case SIGSYS: "SIGSYS"
        case SIGPIPE: "SIGPIPE"
        case SIGINT: "SIGINT"
        default: "signal \(signal)"
        }
    }
}

/// One long-lived thread that starts every child. `PR_SET_PDEATHSIG` fires
/// when the *thread* that spawned a child exits, not the process: spawning
/// from a pool thread that later retires would kill a healthy child. This
/// thread never exits.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()
    // Guarded by `condition`.
    private let condition = Condition()
    private var jobs: [() -> Void] = []

    private init() {
        startThread(named: "graft.spawn") { [unowned self] in self.loop() }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on the spawn thread and returns its result.
    func run<Result>(_ body: @escaping () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result?
        condition.lock()
        jobs.append {
            result = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        return result!
    }
}
