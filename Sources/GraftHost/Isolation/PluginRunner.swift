import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftSupport
import Logging

/// The host's side of one runner child (`graft-child serve`): it maps the
/// plugins given to it and serves their calls, so that a plugin that crashes,
/// hangs or allocates without bound takes down the child, not the host.
///
/// Calls are made on the callers' threads, many at once: each sends its
/// request and waits for its answer, and one of the waiting callers at a
/// time reads the child's channel for all of them (`waitForAnswer`), handing each
/// answer to its caller. The child serves calls about one instance in order
/// and the rest at once (`RunnerLanes`). Frames carry request ids, which also
/// lets two kinds of request travel without a round trip of their own: a
/// destroy (`post`, sent with the next request) and a render sent behind its
/// create (`call(then:)`, collected later).
///
/// Every call has a deadline: past it the child is killed, the call fails
/// with `plugin_timeout`, and the calls in flight with it fail with
/// `plugin_restarted` (they are asked again on a new child, once). A child
/// that dies fails every call in flight with `plugin_crashed` (the signal,
/// or `plugin_memory_limit` when a memory limit was set and reached). The
/// child is started again on the next call; the instances it held are
/// re-created by their `ComponentInstance` from their last inputs. A plugin
/// that crashes its runner three times within a minute is quarantined until
/// its file changes.
final class PluginRunner: @unchecked Sendable {
    /// Limits every call on a runner obeys.
    struct Limits: Sendable, Hashable {
        var call: Duration
        var validator: Duration
        var load: Duration
        var memory: UInt64?
        var output: Int
        /// CPU time a child may use per second with no call in flight (`IdleCPUWatch`); nil: not watched.
        var idleCPU: Duration? = nil
    }

    typealias Calls = RunnerCalls<LoadedPlugin, InstanceContext>

    let executable: String
    let limits: Limits
    /// Whether the child maps private copies (a host that hot-swaps).
    let mapsCopies: Bool
    let logger: Logger
    /// Opens a plugin's file for the child, with the host's checks (trust,
    /// identity); set by the host.
    let open: @Sendable (LoadedPlugin) throws(GraftError) -> PluginFile
    /// Told when a plugin has crashed its runners too often.
    let quarantine: @Sendable (LoadedPlugin, GraftError) -> Void
    /// The sandbox of each child this runner starts, or why it cannot have one
    /// (a granted data folder that cannot be made); nil: unsandboxed. Worked
    /// out when the first child starts: a host makes a runner for each plugin
    /// it lists, most of which never start one.
    let sandbox: @Sendable () -> Result<ChildSandbox.Request?, GraftError>
    /// Starts a child and connects to it (`ChildProcess`, or `MemoryTransport` in tests).
    let connect: RunnerConnect
    /// Acts the sandbox refused; `logged`: the instance a call was about logs them.
    let report: @Sendable (_ plugin: LoadedPlugin, _ denials: [SandboxDenial], _ logged: Bool) -> Void

    // Everything below is guarded by `lock`, whose condition wakes the callers that wait.
    let lock = Condition()
    /// The requests in flight on the current child (`RunnerCalls`: no I/O).
    var calls: Calls
    /// The child's life: which one runs, its generation, crashes and quarantine.
    var supervisor = RunnerSupervisor()
    var slots: [ObjectIdentifier: UInt32] = [:]
    /// The plugins loaded in the child, in the order they were (weakly: a
    /// plugin holds its runner).
    var servedPlugins: [Weak<LoadedPlugin>] = []
    /// Plugins whose load is on its way to the child: other callers wait for it.
    var loading: Set<ObjectIdentifier> = []
    /// Whether a caller is reading the channel (the others wait on `lock`).
    var reading = false
    /// Why the child was killed while another caller was reading: what that
    /// reader reports when it finds the channel closed.
    var doomed: (child: any RunnerTransport, culprit: UInt32?, error: GraftError)?
    /// Whether `LateSends` will send what `post` queued.
    var lateSendScheduled = false
    /// Guarded by `lock`: see `RunnerPrefetch.swift`.
    var rendersFirst: [FirstCallKey: MediaType] = [:]
    /// Set by `close`: no new call is made.
    var closed: GraftError?
    /// A thread per child reads its channel for every caller (`RunnerReading`), instead of callers taking turns.
    let readerThread: Bool

    /// Posted frames go with the next request, in the same write, or this
    /// much later (`LateSends`), whichever is first: a destroy then costs the
    /// child no wake-up of its own.
    static let postDelay = Duration.milliseconds(5)

    init(
        executable: String, limits: Limits, mapsCopies: Bool,
        sandbox: @escaping @Sendable () -> Result<ChildSandbox.Request?, GraftError> = { .success(nil) },
        logger: Logger, open: @escaping @Sendable (LoadedPlugin) throws(GraftError) -> PluginFile,
        quarantine: @escaping @Sendable (LoadedPlugin, GraftError) -> Void,
        report: @escaping @Sendable (LoadedPlugin, [SandboxDenial], Bool) -> Void = { _, _, _ in },
        connect: @escaping RunnerConnect = ChildProcess.connectRunner, readerThread: Bool = false
    ) {
        self.connect = connect
        self.readerThread = readerThread
        self.executable = executable
        self.limits = limits
        self.mapsCopies = mapsCopies
        self.sandbox = sandbox
        self.logger = logger
        self.open = open
        self.quarantine = quarantine
        self.report = report
        calls = Calls(outputLimit: limits.output)
    }

    deinit {
        if let child = supervisor.child, !calls.queued.isEmpty { _ = child.send(frames: calls.takeQueued()) }
        supervisor.child?.leave()
    }

    /// The running child's process id, if one runs (for tests).
    var childPID: pid_t? { lock.withLock { supervisor.child?.processID } }

    /// The host's descriptors for the running child (for tests).
    var childDescriptors: [Int32] { lock.withLock { supervisor.child?.descriptors ?? [] } }

    // MARK: Calls

    /// A remote instance: the child generation that created it and its number there.
    struct Instance: Sendable, Hashable {
        var generation: Int
        var number: UInt32
    }

    typealias Answer = Calls.Answer

    /// Sends one request about `plugin` and waits for its answer, delivering
    /// the events emitted meanwhile. `what` names the call in errors
    /// ("render of echo@1 (instance 'e')"). With `instance`, the call fails
    /// with `plugin_restarted` if that instance's child is gone.
    ///
    /// With `then`, a second request goes in the same write, right behind
    /// this one (a render behind its create); its answer is not waited for
    /// here but kept for `collect` (or dropped by `forget`), and its id is
    /// returned.
    ///
    /// A call whose child died with requests posted before it unanswered, or
    /// before it reached the child, or was killed for another call's fault,
    /// is tried once more on a new child: the death is likely not its own
    /// (`RunnerRetry`, the one policy every retry follows).
    func call(
        _ kind: Wire.Kind, plugin: LoadedPlugin, what: CallName, instance: Instance? = nil,
        deadline: Duration? = nil, context: InstanceContext? = nil, then follower: (kind: Wire.Kind, payload: [UInt8])? = nil,
        _ payload: (inout WireWriter, _ slot: UInt32) -> Void
    ) throws(GraftError) -> (answer: Answer, generation: Int, followerID: UInt32?) {
        try withEvents { (events) throws(GraftError) in
            if let closed { throw closed }
            if let held = supervisor.quarantined[ObjectIdentifier(plugin)] { throw held }
            if let instance, instance.generation != supervisor.generation || supervisor.child == nil {
                throw Self.restarted(plugin, what)
            }
            for attempt in 0..<2 {
                var sendFailed = false
                // Where this call's frames end in the child's ring: a child that died before taking them never ran
                // it. (A frame another caller put right after can only move the mark later: at worst the one retry
                // the policy allows anyway.)
                var sentThrough: UInt64? = nil
                let child = try running(for: plugin)
                let posted = calls.hasPosted
                do throws(GraftError) {
                    let slot = try slot(for: plugin, in: child, events: &events)
                    var writer = WireWriter()
                    payload(&writer, slot)
                    let sentTo = supervisor.generation
                    let context = context ?? instance.flatMap { calls.context(of: $0.number) }
                    // What `post` queued goes first, in the same write.
                    var frames: [UInt8] = []
                    let id = calls.add(
                        kind, plugin: plugin, what: what, context: context, deadline: deadline ?? limits.call,
                        payload: writer.bytes, into: &frames)
                    let followerID = follower.map {
                        calls.add($0.kind, plugin: plugin, what: what, context: context, deadline: nil, payload: $0.payload, into: &frames)
                    }
                    if !child.send(frames: frames) {
                        sendFailed = true
                        calls.sendFailed(id)
                    } else {
                        sentThrough = child.sentMark
                    }
                    do throws(GraftError) {
                        return (try waitForAnswer(id, on: child, events: &events), sentTo, followerID)
                    } catch {
                        // The request failed without its child dying (a create the
                        // plugin refused): nobody will collect the follower's answer.
                        if let followerID { calls.forget(followerID) }
                        throw error
                    }
                } catch {
                    let call = RunnerRetry.Call.request(
                        posted: posted, unsent: sendFailed || sentThrough.map { !child.took(through: $0) } == true,
                        newChild: supervisor.child !== child, aboutInstance: instance != nil)
                    switch RunnerRetry.after(error, attempt: attempt, in: call) {
                    case .resend:
                        logger.notice("the runner of plugin '\(plugin.info.id)' died before \(what); trying it on a new process.")
                    case .recreate: throw Self.restarted(plugin, what)  // its `RunnerInstance` creates it again
                    case .none, .createAlone: throw error
                    }
                }
            }
            throw GraftError(
                .pluginCrashed, "plugin '\(plugin.info.id)': its runner could not serve \(what).",
                path: plugin.info.path)
        }
    }

    /// What a call about an instance its child no longer holds fails with.
    static func restarted(_ plugin: LoadedPlugin, _ what: CallName) -> GraftError {
        GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted; \(what) must be re-created.")
    }

    /// Runs `body` with `lock` held, then delivers the events it gathered:
    /// outside the lock, since a handler may call into the same plugin.
    func withEvents<T>(_ body: (inout [Calls.Event]) throws(GraftError) -> T) throws(GraftError) -> T {
        var events: [Calls.Event] = []
        lock.lock()
        let result = Result { () throws(GraftError) in try body(&events) }
        lock.unlock()
        for event in events { event.deliver() }
        return try result.get()
    }

    /// Sends a request about an instance without waiting for its answer (a
    /// destroy: nothing the caller could do with a failure), with the next
    /// request or within `postDelay`. If the child dies before the next call
    /// is answered, that call is tried once more on a new child, since the
    /// death may be this request's.
    func post(_ kind: Wire.Kind, plugin: LoadedPlugin, instance: Instance, _ payload: (inout WireWriter) -> Void) {
        lock.withLock {
            guard supervisor.child != nil, instance.generation == supervisor.generation else { return }
            var writer = WireWriter()
            payload(&writer)
            calls.post(kind, payload: writer.bytes)
            if !lateSendScheduled {
                lateSendScheduled = true
                LateSends.shared.schedule(self, after: Self.postDelay)
            }
        }
    }

    /// Sends what `post` queued, if no request took it along meanwhile.
    func sendQueued() {
        lock.withLock {
            lateSendScheduled = false
            guard let child = supervisor.child, !calls.queued.isEmpty else { return }
            _ = child.send(frames: calls.takeQueued())
        }
    }

    /// Registers where `emitted` frames for `number` go (after `create`).
    func attach(_ context: InstanceContext?, to instance: Instance) {
        lock.withLock { if instance.generation == supervisor.generation { calls.attach(context, to: instance.number) } }
    }

    /// Forgets an instance (after `destroy`, or when its owner goes).
    func detach(_ instance: Instance) { attach(nil, to: instance) }
}

extension LoadedPlugin: RunnerSubject {
    var subjectID: String { info.id }
    var subjectPath: String { info.path }
}

extension RegisteredComponent {
    /// The process id of the runner child serving this component, if it is
    /// isolated and its child runs (benchmarks place it on a CPU).
    package var runnerProcessID: Int32? { plugin.runner?.childPID }
}

extension RegisteredValidator {
    /// The process id of the runner child serving this validator, if any.
    package var runnerProcessID: Int32? { plugin.runner?.childPID }
}
