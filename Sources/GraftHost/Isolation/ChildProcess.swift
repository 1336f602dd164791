import CGraftSystem
import Dispatch
import FoundationEssentials
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
    private let channel: Int32
    private let output: Int32
    /// The read end of the child's progress pipe (its descriptor 4), or -1.
    private let progress: Int32
    /// Readable once the child has exited (pidfd), or -1: a child that dies
    /// is seen dead at once, even when a process it left behind still holds
    /// its socket.
    private var exited: Int32 = -1
    private var received: [UInt8] = []
    private var pendingOutput: [UInt8] = []
    private var reaped: Termination?
    /// The sandbox asked for, its policy with the child's private folder added.
    private let sandbox: ChildSandbox.Request?
    /// The child's private temporary folder (sandboxed children only).
    private let folder: ChildFolder?
    private let logger: Logger?
    /// What the child applied of its sandbox, from its hello.
    private(set) var sandboxStatus: ChildSandbox.Status?
    /// The host's side of the child's seccomp filter, once the hello brought its listener.
    private(set) var sandboxWatch: SandboxWatch?
    /// Bytes taken from the channel so far (`streamPosition`). Guarded by
    /// `positionLock`, which is never held across a blocking call.
    private let positionLock = Lock()
    private var consumed: UInt64 = 0
    /// Where in the channel's stream `received` starts, and where the last
    /// frame `receive` returned ended.
    private var bufferStart: UInt64 = 0
    private(set) var lastFrameEnd: UInt64 = 0
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

    /// Checks what the child says it applied of its sandbox against what its
    /// host requires, and starts answering its filter.
    private func accept(_ status: ChildSandbox.Status?) throws(GraftError) {
        let listener = receivedListener
        receivedListener = -1
        // Closed unless a watch takes it.
        var watched = false
        defer { if !watched && listener >= 0 { close(listener) } }
        guard let sandbox else { return }
        guard let status else {
            stop()
            throw GraftError(.sandboxUnavailable, "\(executable) did not enter the sandbox its host asked for; it was stopped.", path: executable)
        }
        sandboxStatus = status
        if !status.isComplete {
            let missing = status.missing.isEmpty ? "the sandbox" : status.missing
            if sandbox.mode == .enforced {
                stop()
                throw GraftError(
                    .sandboxUnavailable,
                    "this system cannot sandbox plugins (missing: \(missing)); they do not run unsandboxed. Set the sandbox to best-effort (`--sandbox best-effort`, `GraftConfiguration.sandbox.mode`) to run them with what the kernel has, or off for plugins trusted like the app's own.",
                    path: executable)
            }
            if !Self.warnedIncomplete.exchange(true, ordering: .relaxed) {
                logger?.warning("sandbox_unavailable: plugins run with a partial sandbox (missing: \(missing)).")
            }
        }
        if !status.degraded.isEmpty, !Self.warnedDegraded.exchange(true, ordering: .relaxed) {
            logger?.warning("sandbox_unavailable: plugins run without part of their isolation (missing: \(status.degraded)); Landlock and seccomp still hold.")
        }
        if listener >= 0 {
            watched = true
            let watch = SandboxWatch(
                listener: listener, process: pid, policy: sandbox.policy, quotas: Self.quotas(sandbox.policy, status),
                position: { [weak self] in self?.streamPosition() ?? .max })
            sandboxWatch = watch
            SandboxMonitor.shared.watch(watch)
        }
    }

    /// The child's folders on the host's disk that the host keeps under a
    /// size: its data folder, and its private folder when the kernel gave it
    /// no tmpfs (the child says in its hello).
    static func quotas(_ policy: SandboxPolicy, _ status: ChildSandbox.Status) -> [FolderQuota] {
        var quotas: [FolderQuota] = []
        let fileLimit = policy.fileLimit(privateTmpfs: status.privateTmpfs)
        if let data = policy.dataFolder, let limit = policy.dataLimit {
            // Where the child names it (see `graft_sandbox_enter`): bound into its tmpfs, through a descriptor, or its own path.
            let named =
                status.privateTmpfs ? policy.privateFolder.map { $0 + "/data" } ?? data
                : status.user != geteuid() ? "/proc/self/fd/\(SandboxPolicy.dataDescriptor)" : data
            quotas.append(FolderQuota(childPath: named, hostPath: data, limit: limit, fileLimit: fileLimit, what: "its data folder"))
        }
        if let privateFolder = policy.privateFolder, !status.privateTmpfs {
            quotas.append(
                FolderQuota(
                    childPath: privateFolder, hostPath: privateFolder, limit: policy.privateSize, files: policy.privateFiles,
                    fileLimit: fileLimit, what: "its private folder"))
        }
        return quotas
    }

    /// Whether a best-effort sandbox's missing parts, and missing namespaces,
    /// were logged already (once per process each).
    private static let warnedIncomplete = Atomic<Bool>(false)
    private static let warnedDegraded = Atomic<Bool>(false)
    /// Set while waiting for the hello: the listener arrives with its first byte.
    private var awaitingListener = false
    private var receivedListener: Int32 = -1

    /// The acts the sandbox refused this child before it had sent `end`
    /// bytes (`lastFrameEnd`: those made while the request just answered was
    /// served), oldest first; all of them when nil.
    package func sandboxDenials(before end: UInt64? = nil) -> [SandboxDenial] {
        sandboxWatch?.take(before: end) ?? []
    }

    /// Bytes the child has sent so far: those taken plus those waiting.
    private func streamPosition() -> UInt64 {
        positionLock.lock()
        defer { positionLock.unlock() }
        var waiting: Int32 = 0
        _ = ioctl(channel, UInt(FIONREAD), &waiting)
        return consumed + UInt64(max(waiting, 0))
    }

    /// What a sandboxed child sees of the environment: the locale and the
    /// time zone, and its private folder as TMPDIR and HOME.
    static func sandboxedEnvironment(temporaryFolder: String) -> [String: String] {
        var environment: [String: String] = [:]
        for (name, value) in ProcessInfo.processInfo.environment
        where name == "LANG" || name == "LANGUAGE" || name.hasPrefix("LC_") || name == "TZ" || name == "GRAFT_MEMBARRIER" {
            environment[name] = value
        }
        environment["TMPDIR"] = temporaryFolder
        environment["HOME"] = temporaryFolder
        environment["PATH"] = "/usr/bin:/bin"
        return environment
    }

    /// Lets the child go without waiting for it: it is told there is no more
    /// work now (it then exits), and is reaped on a thread of its own, so a
    /// child unmapping a hundred plugins costs its host no time.
    func finishInBackground() {
        guard reaped == nil else { return }
        shutdown(channel, Int32(SHUT_WR))
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

    // MARK: Talking

    /// Sends one frame, with `descriptor` attached when given. False when the
    /// child is gone.
    @discardableResult
    func send(_ kind: Wire.Kind, id: UInt32, payload: [UInt8], descriptor: Int32 = -1) -> Bool {
        let frame = Wire.frame(kind, id: id, payload: payload)
        return frame.withUnsafeBytes { graft_send_with_fd(channel, $0.baseAddress, $0.count, descriptor) } == 0
    }

    /// Sends frames already framed, in one write. False when the child is gone.
    func send(frames: [UInt8]) -> Bool { send(frame: frames, descriptor: -1) }

    /// Sends a frame already framed with `descriptor` attached (-1: none). False when the child is gone.
    func send(frame: [UInt8], descriptor: Int32) -> Bool {
        frame.withUnsafeBytes { graft_send_with_fd(channel, $0.baseAddress, $0.count, descriptor) } == 0
    }

    /// The next frame, waiting at most until `deadline`. Lines the child
    /// writes to stdout or stderr meanwhile go to `onOutput`, at most
    /// `outputLimit` bytes per call; the rest is counted and dropped, so a
    /// child that floods its output can neither starve the wait nor grow the
    /// host. `lastFrameEnd` then says where the frame ended in the stream.
    func receive(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> Received {
        var outputBudget = Self.outputLimit
        var droppedOutput = 0
        defer {
            if droppedOutput > 0 { onOutput("(\(droppedOutput) more bytes of output dropped: more than \(Self.outputLimit) in one call)") }
            if let note = lineRate.takeNote() { onOutput(note) }
        }
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
                    bufferStart += UInt64(Wire.headerSize + header.length)
                    lastFrameEnd = bufferStart
                    return .frame(header, payload)
                }
            }
            let now = ContinuousClock.now
            guard now < deadline else { return .timedOut }
            // Both the channel and the output pipe, with the deadline as the
            // timeout (whole milliseconds, rounded up: never shorter than asked).
            let remaining = deadline - now
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            var descriptors = [
                pollfd(fd: channel, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, exited >= 0 ? 3 : 2, Int32(clamping: milliseconds))
            if ready < 0 && errno != EINTR { return .closed }
            if descriptors[1].revents != 0 { drainOnce(onOutput, budget: &outputBudget, dropped: &droppedOutput) }
            if descriptors[0].revents == 0 && exited >= 0 && descriptors[2].revents != 0 {
                // Gone, and nothing of it left to read: closed, whoever holds the socket.
                flushOutput(onOutput)
                return .closed
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = receiveAvailable()
            if count > 0 { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            flushOutput(onOutput)
            return .closed
        }
    }

    /// Output kept per `receive`, in bytes.
    static let outputLimit = 256 << 10

    /// Reads what the channel holds, without waiting, counting it for
    /// `streamPosition`. Returns the count, 0 at the end, or -1.
    private func receiveAvailable() -> Int {
        positionLock.lock()
        defer { positionLock.unlock() }
        var count: Int
        if awaitingListener {
            // The hello brings the seccomp listener with its first byte.
            var descriptor: Int32 = -1
            count = graft_receive_with_fd(channel, scratch.baseAddress, scratch.count, &descriptor)
            if descriptor >= 0 {
                if receivedListener < 0 { receivedListener = descriptor } else { close(descriptor) }
            }
        } else {
            // recv, not recvmsg: descriptors a child might send are closed by
            // the kernel, never installed here.
            count = recv(channel, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        }
        if count > 0 {
            received.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            consumed += UInt64(count)
        }
        return count
    }

    /// One read of the output pipe (at most `scratch`'s 64 KiB), its whole
    /// lines passed on while `budget` lasts.
    private func drainOnce(_ onOutput: (String) -> Void, budget: inout Int, dropped: inout Int) {
        let count = read(output, scratch.baseAddress, scratch.count)
        guard count > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
        guard budget > 0 else {
            dropped += count
            return
        }
        budget -= count
        pendingOutput.append(contentsOf: bytes)
        var start = 0
        while let newline = pendingOutput[start...].firstIndex(of: 10) {
            let line = String(decoding: pendingOutput[start..<newline], as: UTF8.self)
            start = newline + 1
            if let peak = Self.peakReport(line) {
                reportedPeak = peak
            } else {
                switch lineRate.admit() {
                case .write:
                    if let note = lineRate.takeNote() { onOutput(note) }
                    onOutput(line.escapingControls)
                case .dropAndSay(let note): onOutput(note)
                case .drop: break
                }
            }
        }
        pendingOutput.removeFirst(start)
        // A child that never writes a newline still cannot grow the host.
        if pendingOutput.count > 64 * 1024 { flushOutput(onOutput) }
    }

    /// The lines of output passed on a second, whatever the calls (see `LineRate`).
    private var lineRate = LineRate()

    private func flushOutput(_ onOutput: (String) -> Void) {
        if !pendingOutput.isEmpty { onOutput(String(decoding: pendingOutput, as: UTF8.self).escapingControls) }
        pendingOutput.removeAll()
    }

    // MARK: Ending

    /// Kills the child (if it still runs) and reaps it; returns how it ended.
    @discardableResult
    package func stop() -> Termination {
        if let reaped { return reaped }
        Glibc.kill(pid, SIGKILL)
        return reap(blocking: true)!
    }

    /// Asks the child to leave by closing the channel's sending side, waits
    /// up to `grace`, then kills it.
    @discardableResult
    package func finish(grace: Duration = .milliseconds(200)) -> Termination {
        if let reaped { return reaped }
        shutdown(channel, Int32(SHUT_WR))
        return reap(within: grace, polling: 1000)
    }

    /// How the child ended, once it has: after `receive` says `.closed`, the
    /// child may still be exiting, so this waits up to `grace` before
    /// killing it.
    package func termination(grace: Duration = .seconds(1)) -> Termination {
        reaped ?? reap(within: grace, polling: 500)
    }

    /// Reaps the child once it has exited (looking every `polling` µs), or kills it past `grace`.
    private func reap(within grace: Duration, polling: UInt32) -> Termination {
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            usleep(polling)
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
        if let sandboxWatch { SandboxMonitor.shared.unwatch(sandboxWatch) }
        folder?.remove()
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        reaped = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        return reaped
    }

    static func signalName(_ signal: Int32) -> String {
        graft_signal_abbreviation(signal).map { "SIG" + String(cString: $0) } ?? "signal \(signal)"
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
