import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The host's end of one runner child's connection: what carries frames
/// between a `PluginRunner` and the `RunnerService` that serves it. The
/// runner decides nothing here (that is `RunnerCalls`); a transport only
/// moves bytes, passes a plugin file's descriptor with its `load`, and
/// says how its child ended.
///
/// Two carry it: `ChildProcess`, a socket pair to a `graft-child serve`
/// process (descriptor passing, the sandbox's reports, a crash's signal),
/// and `MemoryTransport`, a `RunnerService.Server` in the same process, for
/// tests of the runner that need no fork.
protocol RunnerTransport: AnyObject {
    /// The child's process id, when it is a process of its own (a runner
    /// watches its CPU time; tests and benches place it).
    var processID: pid_t? { get }
    /// The host's descriptors for the child (for tests).
    var descriptors: [Int32] { get }
    /// Sends frames already framed, in one write; false when the child is gone.
    func send(frames: [UInt8]) -> Bool
    /// Sends one frame with `descriptor` attached (-1: none); false when the child is gone.
    func send(frame: [UInt8], descriptor: Int32) -> Bool
    /// Where what was sent so far ends, where the transport can tell (a
    /// ring's position), else nil.
    var sentMark: UInt64? { get }
    /// Whether the child took everything sent before `mark` (a `sentMark`).
    /// After its death, a request it never took did not run: it may be sent
    /// to the next child.
    func took(through mark: UInt64) -> Bool
    /// The next frame, waiting at most until `deadline`; the child's own
    /// output lines meanwhile go to `onOutput`.
    func receive(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> ChildProcess.Received
    /// Where the last frame received ended in the stream (what the sandbox
    /// refused before it is the request's).
    var lastFrameEnd: UInt64 { get }
    /// What the sandbox refused the child, up to `end` of the stream (nil: all).
    func sandboxDenials(upTo end: UInt64?) -> [SandboxDenial]
    /// The child's peak address space when it died of a crash, else 0.
    var peakMemory: Int { get }
    /// Ends the child at once, without waiting: a caller reading the
    /// connection finds it closed.
    func kill()
    /// Ends the child at once and says how it ended.
    @discardableResult func stop() -> ChildProcess.Termination
    /// Asks the child to leave, then ends it.
    @discardableResult func leave() -> ChildProcess.Termination
    /// How the child ended, once the connection closed.
    func ended() -> ChildProcess.Termination
    /// Has `body` called, on another thread, once the child has ended (where
    /// the transport can tell without a reader: a ring child's pidfd).
    func whenEnded(_ body: @escaping @Sendable () -> Void)
}

extension ChildProcess: RunnerTransport {
    var processID: pid_t? { pid }
    func sandboxDenials(upTo end: UInt64?) -> [SandboxDenial] { sandboxDenials(before: end) }
    func kill() { _ = Glibc.kill(pid, SIGKILL) }
    func leave() -> Termination { finish() }
    func ended() -> Termination { termination() }
    func whenEnded(_ body: @escaping @Sendable () -> Void) {
        positionLock.withLock { ring }?.onEnd.withLock { $0 = body }
    }
}

/// How a runner reaches a new child: the arguments and environment of
/// `graft-child serve`, and its sandbox.
struct RunnerStart {
    var executable: String
    var arguments: [String]
    var environment: [String: String]
    var sandbox: ChildSandbox.Request?
}

/// Starts a runner's child and connects to it.
typealias RunnerConnect = @Sendable (RunnerStart, Logger) throws(GraftError) -> any RunnerTransport

extension ChildProcess {
    /// A `graft-child serve` process, once it said hello, its calls through
    /// a shared-memory ring where the kernel gives one. `GRAFT_RUNNER_RING=0`
    /// in the host's environment keeps every frame on the socket.
    static let connectRunner: RunnerConnect = connectRunner(ring: getenv("GRAFT_RUNNER_RING").map { String(cString: $0) } != "0")

    /// The same, with `ring` false: every frame on the socket (the bench
    /// measures both).
    static func connectRunner(ring: Bool) -> RunnerConnect {
        { start, logger throws(GraftError) in
            let onOutput = { (line: String) in logger.notice("runner: \(line)") }
            let child = try ChildProcess.startGraftChild(
                executable: start.executable, arguments: start.arguments, environment: start.environment,
                sandbox: start.sandbox, logger: logger, onOutput: onOutput)
            if ring, try !child.startRing(spin: ChildRing.machineSpin, onOutput: onOutput) {
                logger.debug("runner: no shared-memory ring; frames go through the socket")
            }
            return child
        }
    }
}
