import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftSupport
import Logging
import Synchronization

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
///
/// A sandboxed child (`ChildSandbox.Request`) gets only an allow-listed environment
/// and a private temporary folder (removed when it is reaped), enters the
/// sandbox before its hello, and sends its seccomp listener with it; the
/// host's `SandboxMonitor` answers the listener from then on.
package final class ChildProcess: @unchecked Sendable {
    // Used by one thread at a time: the owner (Scanner) serializes access.
    let pid: pid_t
    let executable: String
    let channel: Int32
    let output: Int32
    /// The read end of the child's progress pipe (its descriptor 4), or -1.
    private let progress: Int32
    /// Readable once the child has exited (pidfd), or -1: a child that dies
    /// is seen dead at once, even when a process it left behind still holds
    /// its socket.
    var exited: Int32 = -1
    /// What was received and not yet taken as frames.
    var frames = WireFrames()
    var pendingOutput: [UInt8] = []
    var reaped: Termination?
    /// The sandbox asked for, its policy with the child's private folder added.
    let sandbox: ChildSandbox.Request?
    /// The child's private temporary folder (sandboxed children only).
    let folder: ChildFolder?
    let logger: Logger?
    /// What the child applied of its sandbox, from its hello.
    var sandboxStatus: ChildSandbox.Status?
    /// The host's side of the child's seccomp filter, once the hello brought its listener.
    var sandboxWatch: SandboxWatch?
    /// The shared-memory ring frames travel through, once the child took it (`startRing`).
    var ring: ChildRing?
    /// Bytes taken from the channel so far (`streamPosition`). Guarded by
    /// `positionLock`, which is never held across a blocking call.
    let positionLock = Lock()
    var consumed: UInt64 = 0
    /// Where the last frame `receive` returned ended in the channel's stream.
    var lastFrameEnd: UInt64 { frames.taken }
    /// The lines of output passed on a second, whatever the calls (see `LineRate`).
    var lineRate = LineRate()
    /// The child's own peak address space, in bytes, when it died of a crash
    /// signal: the line its crash reporter wrote (`graft_report_peak_on_crash`)
    /// just before. 0 when it exited or was killed (then it is not known).
    /// The kernel's ru_maxrss cannot say it: a child started with posix_spawn
    /// starts at exec from the high-water mark of the host's own memory.
    var peakMemory: Int = 0
    var reportedPeak: Int?
    /// Where each read lands first: allocated once per child, not per call.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

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
    enum Received {
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
    init(
        executable: String, arguments: [String], environment extra: [String: String] = [:], progress: Bool = false,
        sandbox requested: ChildSandbox.Request? = nil, containingDescendants: Bool = true, logger: Logger? = nil
    ) throws(GraftError) {
        self.executable = executable
        self.logger = logger
        var sandbox = requested
        // Removed with the object if this start fails.
        var folder: ChildFolder?
        // The kept namespaces' descriptors, for the child's 5, 6 and 7.
        var keptNamespaces: [Int32] = []
        if var request = sandbox {
            folder = try ChildFolder.take(for: executable, owner: request.policy)
            request.policy.writeFolders.append(folder!.path)
            if request.namespaces { request.policy.privateFolder = folder!.path }
            // Nothing granted needs the host's network: the empty one the host keeps, if it could.
            request.policy.filter = SandboxFilter.program(for: request.policy)
            if request.namespaces, request.policy.isolatesNetwork, let kept = NamespaceKeeper.descriptors(executable: executable) {
                request.policy.joinsKeptNetwork = true
                request.policy.keptUserNamespace = kept.user >= 0
                // The kept IPC namespace only under a filter that refuses every IPC call (a best-effort sandbox
                // without seccomp has none): children sharing it then share nothing; else each makes its own.
                request.policy.joinsKeptIPC = SandboxSupport.current.seccomp && !request.policy.filter.isEmpty
                keptNamespaces = [kept.network, request.policy.joinsKeptIPC ? kept.ipc : -1] + (kept.user >= 0 ? [kept.user] : [])
            }
            sandbox = request
        }
        self.sandbox = sandbox
        self.folder = folder
        // Every descriptor made here, closed if the start fails.
        var made: [Int32] = []
        func failure(_ what: String, _ error: Int32 = errno) -> GraftError {
            made.forEach { close($0) }
            return GraftError(
                .scannerUnavailable, "could not \(what) \(executable): \(String(cString: strerror(error))).", path: executable)
        }
        var pair: [Int32] = [-1, -1], side: [Int32] = [-1, -1], pipeEnds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw failure("create a socket pair for")
        }
        made += pair
        if progress {
            guard graft_pipe_cloexec(&side) == 0 else { throw failure("create a pipe for") }
            made += side
            Self.setNonBlocking(side[0])
        }
        guard graft_pipe_cloexec(&pipeEnds) == 0 else { throw failure("create a pipe for") }
        made += pipeEnds
        // The child's stdout and stderr never block it: past the pipe's 64 KiB
        // of unread output, its writes fail and the lines are lost, not the child.
        Self.setNonBlocking(pipeEnds[1])
        // The child's ends are dup2'd onto 1-4 by the spawn; the originals
        // stay close-on-exec. A sandboxed child gets an allow-listed
        // environment (never the host's secrets); an unsandboxed one, trusted
        // like the host, gets the host's (its plugins' own library path, say).
        var environment =
            sandbox == nil
            ? ProcessInfo.processInfo.environment : Self.sandboxedEnvironment(temporaryFolder: folder!.path)
        environment.merge(extra) { _, new in new }
        environment["GRAFT_PARENT_PID"] = String(getpid())
        environment["SWIFT_BACKTRACE"] = environment["SWIFT_BACKTRACE"] ?? "enable=no"
        // The mode first (`scan`, `serve`, `conform`), then the sandbox's arguments.
        let contain = containingDescendants && Self.needsContaining(sandbox)
        let argv = [executable] + arguments.prefix(1) + (contain ? [Self.containOption] : []) + (sandbox?.policy.arguments ?? [])
            + arguments.dropFirst()
        let envp = environment.map { "\($0.key)=\($0.value)" }
        let (status, pid) = SpawnThread.shared.run { [pair, pipeEnds, side, keptNamespaces] in
            Self.spawn(executable, argv, envp, channel: pair[1], side: side[1], output: pipeEnds[1], extra: keptNamespaces)
        }
        for end in [pair[1], pipeEnds[1], side[1]] where end >= 0 { close(end) }
        made = [pair[0], pipeEnds[0], side[0]].filter { $0 >= 0 }
        guard status == 0 else { throw failure("start", status) }
        self.pid = pid
        channel = pair[0]
        output = pipeEnds[0]
        self.progress = side[0]
        Self.setNonBlocking(output)
        exited = graft_pidfd_open(pid)
    }

    private static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Tells a child to keep what its plugins start in a PID namespace of
    /// its own (`graft_contain_descendants`), killed with it.
    static let containOption = "--contain-processes"

    /// Whether a child needs the namespace: when no seccomp filter will
    /// refuse its plugins a new process (the sandbox off, or a best-effort one
    /// on a kernel without seccomp).
    static func needsContaining(_ sandbox: ChildSandbox.Request?) -> Bool {
        sandbox == nil || !SandboxSupport.current.seccomp
    }

    /// How long a new child may take to say hello.
    static let startDeadline = Duration.seconds(10)

    /// Starts a Graft child (`graft-child scan|serve …`) and waits for its
    /// `hello`: a child that does not say it within `startDeadline`, or was
    /// built for another ABI or machine, is killed and refused with
    /// `scanner_unavailable`.
    package static func startGraftChild(
        executable: String, arguments: [String], environment: [String: String] = [:], progress: Bool = false,
        sandbox: ChildSandbox.Request? = nil, containingDescendants: Bool = true, logger: Logger? = nil, onOutput: (String) -> Void
    ) throws(GraftError) -> ChildProcess {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment, progress: progress, sandbox: sandbox,
            containingDescendants: containingDescendants, logger: logger)
        try child.awaitHello(onOutput: onOutput)
        return child
    }

    /// Waits for a Graft child's `hello` (see `startGraftChild`); a child that
    /// does not say it, or says it for another ABI or machine, is killed, and
    /// so is one whose sandbox is not what its host requires.
    func awaitHello(onOutput: (String) -> Void) throws(GraftError) {
        awaitingListener = sandbox != nil
        if let sandbox { ChildFolder.makeSpare(for: executable, owner: sandbox.policy) }
        defer { awaitingListener = false }
        switch receive(until: .now + Self.startDeadline, onOutput: onOutput) {
        case .frame(let header, let payload) where header.kind == .hello:
            var reader = WireReader(payload)
            if let mismatch = Wire.helloMismatch(&reader) {
                stop()
                throw GraftError(.scannerUnavailable, "\(executable) is not this host's Graft child: \(mismatch).", path: executable)
            }
            try accept((try? reader.sandboxStatus()) ?? nil)
        default:
            let ended = stop()
            throw GraftError(
                .scannerUnavailable,
                "\(executable) did not start as a Graft child (no hello within \(Self.startDeadline)); it \(ended).", path: executable)
        }
    }

    /// Set while waiting for the hello: the listener arrives with its first byte.
    var awaitingListener = false
    var receivedListener: Int32 = -1

    /// Lets the child go without waiting for it: it is told there is no more
    /// work now (it then exits), and is reaped on a thread of its own, so a
    /// child unmapping a hundred plugins costs its host no time.
    func finishInBackground() {
        guard reaped == nil else { return }
        shutdown(channel, Int32(SHUT_WR))
        ring?.letGo()
        startThread(named: "graft.reap") { _ = self.finish() }
    }

    private static func spawn(
        _ path: String, _ argv: [String], _ envp: [String], channel: Int32, side: Int32, output: Int32, extra: [Int32]
    ) -> (Int32, pid_t) {
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnvp = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArgv { free(pointer) }
            for pointer in cEnvp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = graft_spawn_with(path, &cArgv, &cEnvp, channel, side, output, extra, Int32(extra.count), &pid)
        return (status, pid)
    }

    deinit {
        stop()
        if receivedListener >= 0 { close(receivedListener) }
        if exited >= 0 { close(exited) }
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
}
