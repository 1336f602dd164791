import Dispatch
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// A runner's "child" in this very process, for tests of the runner that
/// need no fork: a `RunnerService.Server` serves the frames a `PluginRunner`
/// sends, in the order they came, on a queue of its own, and its answers and
/// events come back through memory. Killing it stops its answers: the runner
/// then sees its connection closed, as it would a crashed child's (a call
/// in progress runs on, unheard). No sandbox, no descriptor of its own.
final class MemoryTransport: RunnerTransport, @unchecked Sendable {
    /// Connects each runner to a server of its own.
    static let connect: RunnerConnect = { start, _ in MemoryTransport(settings: RunnerService.Settings(arguments: start.arguments)) }

    /// Frames from the server to the runner, and how the connection ended.
    private final class Mailbox: @unchecked Sendable {
        let condition = Condition()
        // Guarded by `condition`.
        var frames: [(Wire.Header, [UInt8])] = []
        var ended: ChildProcess.Termination?
        /// Set by `hang`: nothing more is answered.
        var hanging = false

        func post(_ bytes: [UInt8]) {
            var split = WireFrames()
            split.append(bytes)
            var arrived: [(Wire.Header, [UInt8])] = []
            while let frame = try? split.next() { arrived.append(frame) }
            condition.withLock {
                guard ended == nil, !hanging else { return }
                frames += arrived
                condition.broadcast()
            }
        }
    }

    private let mailbox = Mailbox()
    private let server: RunnerService.Server
    private let queue = DispatchQueue(label: "graft.memory-runner")
    // Guarded by `mailbox.condition`: what the runner sent, not yet whole frames, and descriptors for loads.
    private var incoming = WireFrames()
    private var lastCreated: UInt32?

    init(settings: RunnerService.Settings) {
        let mailbox = self.mailbox
        server = RunnerService.Server(settings: settings, outbox: Outbox(sendingAtOnce: { mailbox.post($0) }))
    }

    var processID: pid_t? { nil }
    var descriptors: [Int32] { [] }
    var lastFrameEnd: UInt64 { 0 }
    var peakMemory: Int { 0 }
    func sandboxDenials(upTo end: UInt64?) -> [SandboxDenial] { [] }

    func send(frames: [UInt8]) -> Bool { send(frame: frames, descriptor: -1) }

    /// What the server took is not tracked: a request is taken as delivered once sent.
    var sentMark: UInt64? { nil }
    func took(through mark: UInt64) -> Bool { true }

    /// The descriptor is duplicated, as passing it over a socket would.
    func send(frame bytes: [UInt8], descriptor: Int32) -> Bool {
        mailbox.condition.withLock {
            guard mailbox.ended == nil else { return false }
            incoming.append(bytes)
            var passed = descriptor >= 0 ? dup(descriptor) : -1
            while let (header, payload) = try? incoming.next() {
                let carries = header.kind == .load
                let request: ChildChannel.Request = (header, payload, carries ? passed : -1)
                if carries { passed = -1 }
                let created = server.place(request, lastCreated: &lastCreated).created
                queue.async { [server, mailbox] in
                    let answer = server.serve([request], created: created)
                    mailbox.post(answer)
                }
            }
            if passed >= 0 { close(passed) }
            return true
        }
    }

    func receive(until deadline: ContinuousClock.Instant, onOutput: (String) -> Void) -> ChildProcess.Received {
        mailbox.condition.withLock {
            while true {
                if !mailbox.frames.isEmpty {
                    let (header, payload) = mailbox.frames.removeFirst()
                    return .frame(header, payload)
                }
                if mailbox.ended != nil { return .closed }
                let now = ContinuousClock.now
                guard now < deadline else { return .timedOut }
                mailbox.condition.wait(forSeconds: (deadline - now) / .seconds(1))
            }
        }
    }

    /// From now on the server answers nothing, as a child that hangs (tests of deadlines).
    func hang() { mailbox.condition.withLock { mailbox.hanging = true } }

    func kill() { end(.signaled(SIGKILL)) }

    func stop() -> ChildProcess.Termination {
        kill()
        return ended()
    }

    /// An in-memory child ends only when told: its ender reports it.
    func whenEnded(_ body: @escaping @Sendable () -> Void) {}

    func leave() -> ChildProcess.Termination {
        end(.exited(0))
        return ended()
    }

    func ended() -> ChildProcess.Termination { mailbox.condition.withLock { mailbox.ended ?? .exited(0) } }

    private func end(_ how: ChildProcess.Termination) {
        mailbox.condition.withLock {
            if mailbox.ended == nil { mailbox.ended = how }
            mailbox.condition.broadcast()
        }
    }
}
