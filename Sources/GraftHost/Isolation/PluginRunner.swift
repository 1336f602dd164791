import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
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

    let executable: String
    let limits: Limits
    /// Whether the child maps private copies (a host that hot-swaps).
    let mapsCopies: Bool
    private let logger: Logger
    /// Opens a plugin's file for the child, with the host's checks (trust,
    /// identity); set by the host.
    private let open: @Sendable (LoadedPlugin) throws(GraftError) -> PluginFile
    /// Told when a plugin has crashed its runners too often.
    private let quarantine: @Sendable (LoadedPlugin, GraftError) -> Void
    /// The sandbox of each child this runner starts, or why it cannot have one
    /// (a granted data folder that cannot be made); nil: unsandboxed. Worked
    /// out when the first child starts (`sandboxRequest`, under `lock`): a host
    /// makes a runner for each plugin it lists, most of which never start one.
    private let sandbox: @Sendable () -> Result<ChildSandbox.Request?, GraftError>
    private var sandboxRequest: Result<ChildSandbox.Request?, GraftError>?
    /// Told of every act the sandbox refused a plugin of this runner.
    /// Acts the sandbox refused; `logged`: the instance a call was about logs them.
    private let report: @Sendable (_ plugin: LoadedPlugin, _ denials: [SandboxDenial], _ logged: Bool) -> Void

    // Guarded by `lock`, whose condition wakes the callers that wait.
    private let lock = Condition()
    private var child: ChildProcess?
    /// Bumped every time a child starts: instances of an older generation are gone.
    private var generation = 0
    private var slots: [ObjectIdentifier: UInt32] = [:]
    /// The plugins loaded in the child, in the order they were (weakly: a
    /// plugin holds its runner).
    private var servedPlugins: [Weak<LoadedPlugin>] = []
    /// Plugins whose load is on its way to the child: other callers wait for it.
    private var loading: Set<ObjectIdentifier> = []
    private var contexts: [UInt32: InstanceContext] = [:]
    private var nextID: UInt32 = 0
    private var crashes: [ObjectIdentifier: [ContinuousClock.Instant]] = [:]
    /// Requests sent and not answered yet, or answered and not taken yet.
    private var pending: [UInt32: Pending] = [:]
    /// Whether a caller is reading the channel (the others wait on `lock`).
    private var reading = false
    /// Why the child was killed while another caller was reading: what that
    /// reader reports when it finds the channel closed.
    private var doomed: (child: ChildProcess, culprit: UInt32?, error: GraftError)?
    /// Events of instances whose create is not answered yet, by number: they
    /// go with the create's answer (the child sends them just before it).
    private var unclaimed: [UInt32: [(name: String, payload: GraftValue?, rest: WireReader)]] = [:]
    private var unclaimedCount = 0
    /// Events that came while no call about their instance was in flight
    /// (a plugin's own thread), counted against `limits.output` until a call ends.
    private var looseBytes = 0
    private var looseCount = 0
    /// Requests posted without waiting (`post`): their answers are skipped
    /// when they arrive.
    private var unanswered: Set<UInt32> = []
    /// Posted frames not sent yet: they go with the next request, in the
    /// same write, or `postDelay` later (`LateSends`), whichever is first.
    /// A destroy then costs the child no wake-up of its own.
    private var queued: [UInt8] = []
    private var lateSendScheduled = false
    static let postDelay = Duration.milliseconds(5)
    private var quarantined: [ObjectIdentifier: GraftError] = [:]
    /// Set by `close`: no new call is made.
    private var closed: GraftError?

    static let crashesBeforeQuarantine = 3
    static let crashWindow = Duration.seconds(60)
    /// Events one call may bring (and `limits.output` bytes of them): past
    /// either, the call fails and the child is killed.
    static let eventLimit = 1024

    /// A request on its way, and what came for it.
    private final class Pending {
        let id: UInt32
        let kind: Wire.Kind
        let plugin: LoadedPlugin
        let what: String
        /// The instance it concerns: its events, and what the sandbox refused meanwhile, go there.
        var context: InstanceContext?
        /// When its caller gives up; nil while nobody waits for it (a render
        /// sent behind its create, until it is collected).
        var until: ContinuousClock.Instant?
        var deadline: Duration
        var outcome: Result<Answer, GraftError>?
        var events: [Event] = []
        var eventBytes = 0
        /// Whether the request could not even be sent (the child had died between calls).
        var sendFailed = false

        init(
            id: UInt32, kind: Wire.Kind, plugin: LoadedPlugin, what: String, context: InstanceContext?,
            deadline: Duration?
        ) {
            self.id = id
            self.kind = kind
            self.plugin = plugin
            self.what = what
            self.context = context
            self.deadline = deadline ?? .zero
            until = deadline.map { .now + $0 }
        }
    }

    /// An event an instance emitted: delivered once the call it came with is
    /// over and the lock released.
    private struct Event {
        var context: InstanceContext
        var name: String
        var payload: GraftValue?
        var warnings: [GraftWarning]

        func deliver() { context.deliver(name, payload: payload, warnings: warnings) }
    }

    init(
        executable: String, limits: Limits, mapsCopies: Bool,
        sandbox: @escaping @Sendable () -> Result<ChildSandbox.Request?, GraftError> = { .success(nil) },
        logger: Logger, open: @escaping @Sendable (LoadedPlugin) throws(GraftError) -> PluginFile,
        quarantine: @escaping @Sendable (LoadedPlugin, GraftError) -> Void,
        report: @escaping @Sendable (LoadedPlugin, [SandboxDenial], Bool) -> Void = { _, _, _ in }
    ) {
        self.executable = executable
        self.limits = limits
        self.mapsCopies = mapsCopies
        self.sandbox = sandbox
        self.logger = logger
        self.open = open
        self.quarantine = quarantine
        self.report = report
    }

    deinit {
        if let child, !queued.isEmpty { _ = child.send(frames: queued) }
        child?.finish()
    }

    /// The running child's process id, if one runs (for tests).
    var childPID: pid_t? { lock.withLock { child?.pid } }

    /// The host's descriptors for the running child (for tests).
    var childDescriptors: [Int32] { lock.withLock { child?.descriptors ?? [] } }

    // MARK: Calls

    /// A remote instance: the child generation that created it and its number there.
    struct Instance: Sendable, Hashable {
        var generation: Int
        var number: UInt32
    }

    struct Answer {
        var kind: Wire.Kind
        var reader: WireReader
    }

    /// Sends one request about `plugin` and waits for its answer, delivering
    /// the events emitted meanwhile. `what` names the call in errors
    /// ("render of echo@1 (instance 'e')"). With `instance`, the call fails
    /// with `plugin_restarted` if that instance's child is gone.
    ///
    /// With `then`, a second request goes in the same write, right behind
    /// this one (a render behind its create); its answer is not waited for
    /// here but kept for `collect` (or dropped by `forget`), and its id is
    /// returned.
    func call(
        _ kind: Wire.Kind, plugin: LoadedPlugin, what: String, instance: Instance? = nil,
        deadline: Duration? = nil, context: InstanceContext? = nil, then follower: (kind: Wire.Kind, payload: [UInt8])? = nil,
        _ payload: (inout WireWriter, _ slot: UInt32) -> Void
    ) throws(GraftError) -> (answer: Answer, generation: Int, followerID: UInt32?) {
        try withEvents { (events) throws(GraftError) in
            if let closed { throw closed }
            if let held = quarantined[ObjectIdentifier(plugin)] { throw held }
            if let instance, instance.generation != generation || child == nil { throw Self.restarted(plugin, what) }
            for attempt in 0..<2 {
                var sendFailed = false
                let child = try running(for: plugin)
                let posted = !unanswered.isEmpty
                do throws(GraftError) {
                    let slot = try slot(for: plugin, in: child, events: &events)
                    var writer = WireWriter()
                    payload(&writer, slot)
                    let sentTo = generation
                    let request = Pending(
                        id: takeID(), kind: kind, plugin: plugin, what: what,
                        context: context ?? instance.flatMap { contexts[$0.number] }, deadline: deadline ?? limits.call)
                    // What `post` queued goes first, in the same write.
                    var frames = queued
                    queued.removeAll(keepingCapacity: true)
                    frames += Wire.frame(kind, id: request.id, payload: writer.bytes)
                    var followerID: UInt32?
                    if let follower {
                        let behind = Pending(
                            id: takeID(), kind: follower.kind, plugin: plugin, what: what, context: request.context,
                            deadline: nil)
                        frames += Wire.frame(follower.kind, id: behind.id, payload: follower.payload)
                        pending[behind.id] = behind
                        followerID = behind.id
                    }
                    pending[request.id] = request
                    if !child.send(frames: frames) { request.sendFailed = true }
                    do throws(GraftError) {
                        return (try waitForAnswer(request, on: child, events: &events), sentTo, followerID)
                    } catch {
                        sendFailed = request.sendFailed
                        // The request failed without its child dying (a create the
                        // plugin refused): nobody will collect the follower's answer.
                        if let followerID { forgetLocked(followerID) }
                        throw error
                    }
                } catch {
                    // The child died, or was found dead, with requests posted
                    // before this call still unanswered, or before this request
                    // reached it, or it was killed for another call's fault: the
                    // death is likely not this call's. Once more, on a new child
                    // (an instance is re-created there first).
                    let notThisCall = posted || sendFailed || error.code == .pluginRestarted
                    guard attempt == 0, self.child !== child, notThisCall,
                        [.pluginCrashed, .pluginMemoryLimit, .pluginTimeout, .pluginRestarted].contains(error.code)
                    else { throw error }
                    if instance != nil { throw Self.restarted(plugin, what) }
                    logger.notice(
                        "the runner of plugin '\(plugin.info.id)' died before \(what); trying it on a new process.")
                }
            }
            throw GraftError(
                .pluginCrashed, "plugin '\(plugin.info.id)': its runner could not serve \(what).",
                path: plugin.info.path)
        }
    }

    /// What a call about an instance its child no longer holds fails with.
    private static func restarted(_ plugin: LoadedPlugin, _ what: String) -> GraftError {
        GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted; \(what) must be re-created.")
    }

    /// Runs `body` with `lock` held, then delivers the events it gathered:
    /// outside the lock, since a handler may call into the same plugin.
    private func withEvents<T>(_ body: (inout [Event]) throws(GraftError) -> T) throws(GraftError) -> T {
        var events: [Event] = []
        lock.lock()
        let result = Result { () throws(GraftError) in try body(&events) }
        lock.unlock()
        for event in events { event.deliver() }
        return try result.get()
    }

    private func takeID() -> UInt32 {
        nextID &+= 1
        return nextID
    }

    /// Sends a request about an instance without waiting for its answer (a
    /// destroy: nothing the caller could do with a failure), with the next
    /// request or within `postDelay`. If the child dies before the next call
    /// is answered, that call is tried once more on a new child, since the
    /// death may be this request's.
    func post(_ kind: Wire.Kind, plugin: LoadedPlugin, instance: Instance, _ payload: (inout WireWriter) -> Void) {
        lock.withLock {
            guard child != nil, instance.generation == generation else { return }
            var writer = WireWriter()
            payload(&writer)
            let id = takeID()
            queued += Wire.frame(kind, id: id, payload: writer.bytes)
            unanswered.insert(id)
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
            guard let child, !queued.isEmpty else { return }
            _ = child.send(frames: queued)
            queued.removeAll(keepingCapacity: true)
        }
    }

    /// Registers where `emitted` frames for `number` go (after `create`).
    func attach(_ context: InstanceContext?, to instance: Instance) {
        lock.withLock { if instance.generation == generation { contexts[instance.number] = context } }
    }

    /// Forgets an instance (after `destroy`, or when its owner goes).
    func detach(_ instance: Instance) { attach(nil, to: instance) }

    /// The child, started (again, after one ended) for a call about `plugin`.
    private func running(for plugin: LoadedPlugin) throws(GraftError) -> ChildProcess {
        if let child { return child }
        if generation > 0 { plugin.telemetry?.restarted() }
        var arguments = ["serve", "--output-limit", String(limits.output)]
        if let memory = limits.memory { arguments += ["--memory-limit", String(memory)] }
        let made = sandboxRequest ?? sandbox()
        sandboxRequest = made
        let request = try made.get()
        // A data folder granted to the plugin: the child learns where it is.
        let data = request?.policy.writeFolders.first
        let started = try ChildProcess.startGraftChild(
            executable: executable, arguments: arguments, environment: data.map { ["GRAFT_DATA_DIR": $0] } ?? [:],
            sandbox: request, logger: logger, onOutput: { self.logger.notice("runner: \($0)") })
        generation += 1  // `reset` emptied what the last child held
        child = started
        if limits.idleCPU != nil { IdleCPUWatch.shared.watch(self) }
        return started
    }

    /// The child's CPU time now, with what says whether it was idle (see `IdleCPUWatch`); nil without a child.
    func idleSample() -> IdleSample? {
        lock.withLock {
            guard let child else { return nil }
            let inFlight = reading || pending.values.contains { $0.outcome == nil }
            return IdleSample(
                child: ObjectIdentifier(child), pid: child.pid, cpu: IdleCPUWatch.cpuTime(ofTree: child.pid), requests: nextID,
                inFlight: inFlight, at: .now)
        }
    }

    /// Stops the child of `sample` if it is still this runner's and still
    /// idle: it used `used` of CPU in `over` with no call in flight.
    func stopIdleChild(_ sample: IdleSample, used: Duration, over: Duration) {
        lock.withLock {
            guard let child, ObjectIdentifier(child) == sample.child, nextID == sample.requests, !reading,
                !pending.values.contains(where: { $0.outcome == nil }), let plugin = servedPlugins.lazy.compactMap(\.value).first
            else { return }
            func milliseconds(_ duration: Duration) -> Int { Int(duration / .milliseconds(1)) }
            let plugins = servedPlugins.compactMap(\.value).map { "'\($0.info.id)'" }.joined(separator: ", ")
            kill(
                child, plugin: plugin, .pluginCPUIdle,
                "(of \(plugins)) used \(milliseconds(used)) ms of CPU in \(milliseconds(over)) ms with no call in flight, more than its \(milliseconds(limits.idleCPU ?? .zero)) ms a second")
        }
    }

    /// The plugin's slot in `child`, loading it there first (once: other
    /// callers wait for a load on its way).
    private func slot(for plugin: LoadedPlugin, in child: ChildProcess, events: inout [Event]) throws(GraftError) -> UInt32 {
        let key = ObjectIdentifier(plugin)
        while true {
            guard self.child === child else {
                throw GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted while it was loaded.")
            }
            if let slot = slots[key] { return slot }
            guard loading.contains(key) else { break }
            lock.wait()
        }
        loading.insert(key)
        defer {
            loading.remove(key)
            lock.broadcast()
        }
        let file = try open(plugin)
        // Queued frames first, on their own: the descriptor belongs to the load's bytes.
        if !queued.isEmpty {
            _ = child.send(frames: queued)
            queued.removeAll(keepingCapacity: true)
        }
        let request = Pending(
            id: takeID(), kind: .load, plugin: plugin, what: "loading it", context: nil, deadline: limits.load)
        pending[request.id] = request
        // A load's payload is laid out as a scan's.
        let payload = ScanRequest(path: file.path, realPath: file.realPath, copy: mapsCopies).bytes
        request.sendFailed = !child.send(.load, id: request.id, payload: payload, descriptor: file.descriptor)
        var answer = try waitForAnswer(request, on: child, events: &events)
        guard answer.kind == .loaded, let slot = try? answer.reader.u32(), let mapped = try? answer.reader.plugin(path: plugin.info.path)
        else {
            throw abandon(child, plugin: plugin, "answered a load with \(answer.kind)")
        }
        // The plugin must declare in its runner what its scan recorded, as it
        // must when mapped in process: a build that tells each process
        // something else is refused.
        guard mapped.declaresSame(as: plugin.info) else {
            throw kill(child, plugin: plugin, GraftError(
                .invalidDescriptor,
                "\(plugin.info.path) declares other components, validators, actions or permissions in its runner than when it was scanned; it is refused, as it would be in process.",
                path: plugin.info.path))
        }
        slots[key] = slot
        servedPlugins.append(Weak(plugin))
        return slot
    }

    // MARK: Pipelined answers

    /// Waits for the answer to a request sent with `call(then:)`, or takes it
    /// if it came already. Fails with `plugin_restarted` if `instance`'s
    /// child is gone, as `call` does.
    func collect(_ id: UInt32, plugin: LoadedPlugin, what: String, instance: Instance) throws(GraftError) -> Answer {
        try withEvents { (events) throws(GraftError) -> Answer in
            guard instance.generation == generation, let child else { throw Self.restarted(plugin, what) }
            guard let request = pending[id] else {
                throw GraftError(.pluginRestarted, "the answer to \(what) was lost; \(what) must be asked again.")
            }
            request.context = contexts[instance.number] ?? request.context
            if request.until == nil {
                request.deadline = limits.call
                request.until = .now + limits.call
            }
            return try waitForAnswer(request, on: child, events: &events)
        }
    }

    /// Gives up on a pipelined answer: it is skipped when it arrives.
    func forget(_ id: UInt32) { lock.withLock { forgetLocked(id) } }

    private func forgetLocked(_ id: UInt32) {
        if let request = pending.removeValue(forKey: id), request.outcome == nil { unanswered.insert(id) }
    }

    /// The media type to render a new instance of `component` in, with its
    /// create: the one its last instance was first rendered in, if its first
    /// call was a render. Nil too when many such renders wait already (a host
    /// that creates instances and never uses them must not pile them up).
    func firstRender(of component: RegisteredComponent) -> MediaType? {
        lock.withLock {
            guard uncollectedLocked < Self.uncollectedLimit else { return nil }
            return rendersFirst[FirstCallKey(component)]
        }
    }

    /// Pipelined answers not collected yet (for tests).
    var uncollected: Int { lock.withLock { uncollectedLocked } }

    private var uncollectedLocked: Int { pending.values.count { $0.until == nil } }

    /// Learns whether instances of `component` are rendered first (and in what).
    func noteFirstCall(on component: RegisteredComponent, rendering mediaType: MediaType?) {
        lock.withLock { rendersFirst[FirstCallKey(component)] = mediaType }
    }

    private struct FirstCallKey: Hashable {
        var plugin: ObjectIdentifier
        var reference: ComponentReference
        init(_ component: RegisteredComponent) {
            plugin = ObjectIdentifier(component.plugin)
            reference = component.reference
        }
    }

    /// Guarded by `lock`.
    private var rendersFirst: [FirstCallKey: MediaType] = [:]
    static let uncollectedLimit = 32

    // MARK: Reading the channel

    /// Waits, with `lock` held, until `request` has its answer and takes it
    /// (with its events). While nobody else reads the channel, this caller
    /// does, for every request in flight; the others wait on the condition.
    private func waitForAnswer(_ request: Pending, on child: ChildProcess, events: inout [Event]) throws(GraftError) -> Answer {
        while true {
            if let outcome = request.outcome {
                pending[request.id] = nil
                events += request.events
                looseBytes = 0
                looseCount = 0
                if closed != nil { lock.broadcast() }  // `close` waits for the calls in flight
                return try outcome.get()
            }
            if reading {
                lock.wait()
                continue
            }
            guard self.child === child else {
                // Gone without this request being told (it cannot be): fail it.
                request.outcome = .failure(GraftError(.pluginRestarted, "the process of plugin '\(request.plugin.info.id)' restarted; \(request.what) must be asked again."))
                continue
            }
            reading = true
            // The nearest deadline of every caller waiting: the reader keeps them all.
            let until = pending.values.compactMap { $0.outcome == nil ? $0.until : nil }.min() ?? .now + limits.call
            let plugin = request.plugin
            lock.unlock()
            let received = child.receive(until: until) { line in
                self.logger.notice("\(line)", metadata: ["plugin": "\(plugin.info.id)"])
            }
            lock.lock()
            reading = false
            let loose = take(received, from: child)
            lock.broadcast()
            if !loose.isEmpty {
                lock.unlock()
                for event in loose { event.deliver() }
                lock.lock()
            }
        }
    }

    /// Hands what the reader received to the requests it is for; returns the
    /// events that came with no call about their instance in flight, to be
    /// delivered at once (outside the lock).
    private func take(_ received: ChildProcess.Received, from child: ChildProcess) -> [Event] {
        switch received {
        case .frame(let header, let payload):
            var reader = WireReader(payload)
            if header.kind == .emitted { return route(&reader, bytes: payload.count, child: child) }
            if unanswered.remove(header.id) != nil {
                if header.kind == .failed, let error = try? reader.childError(path: pending.values.first?.plugin.info.path ?? "") {
                    logger.warning("\(error)")
                }
                return []
            }
            guard let request = pending[header.id], request.outcome == nil else {
                if let plugin = pending.values.first?.plugin {
                    abandon(child, plugin: plugin, "answered request \(header.id), which is not in flight")
                }
                return []
            }
            noteDenials(child.sandboxDenials(before: child.lastFrameEnd), of: request.plugin, context: request.context)
            if header.kind == .failed {
                let error = try? reader.childError(path: request.plugin.info.path)
                let reason = "sent an error that does not decode, or carries a code only the host may give"
                request.outcome = .failure(error ?? abandon(child, plugin: request.plugin, reason))
                return []
            }
            if header.kind == .created {
                var number = reader
                if let number = try? number.u32(), let events = unclaimed.removeValue(forKey: number), let context = request.context {
                    unclaimedCount -= events.count
                    for event in events {
                        var rest = event.rest
                        let warnings = (try? rest.warnings(instanceID: context.instanceID)) ?? []
                        request.events.append(Event(context: context, name: event.name, payload: event.payload, warnings: warnings))
                    }
                }
                if !pending.values.contains(where: { $0.kind == .create && $0.outcome == nil && $0 !== request }) {
                    unclaimed = [:]
                    unclaimedCount = 0
                }
            }
            request.outcome = .success(Answer(kind: header.kind, reader: reader))
            return []
        case .closed:
            died(child)
            return []
        case .timedOut:
            let now = ContinuousClock.now
            let overdue = pending.values.filter { $0.outcome == nil && $0.until.map { $0 <= now } == true }
            guard let late = overdue.min(by: { $0.until! < $1.until! }) else { return [] }
            let what = "(\(late.plugin.info.path)) did not answer \(late.what) within \(late.deadline)"
            kill(child, plugin: late.plugin, .pluginTimeout, what, culprit: late)
            return []
        case .violation(let reason):
            if let plugin = pending.values.first?.plugin {
                abandon(child, plugin: plugin, "broke the protocol (\(reason))")
            }
            return []
        }
    }

    /// An event an instance emitted: to the call in flight about that
    /// instance, else (emitted from a plugin's own thread) to be delivered at
    /// once; an instance not created yet keeps it for its create's answer.
    /// Past `eventLimit` events or `limits.output` bytes in one call, the
    /// child is killed.
    private func route(_ reader: inout WireReader, bytes: Int, child: ChildProcess) -> [Event] {
        guard let number = try? reader.u32(), let name = try? reader.string(), let hasPayload = try? reader.bool() else { return [] }
        let payload = hasPayload ? try? reader.value() : nil
        guard let context = contexts[number] else {
            // Only an instance being created may not be known yet.
            guard let create = pending.values.first(where: { $0.kind == .create && $0.outcome == nil }) else { return [] }
            unclaimedCount += 1
            if unclaimedCount > Self.eventLimit {
                flooded(child, create.plugin, in: create)
            } else {
                unclaimed[number, default: []].append((name, payload, reader))
            }
            return []
        }
        let event = Event(
            context: context, name: name, payload: payload, warnings: (try? reader.warnings(instanceID: context.instanceID)) ?? [])
        if let request = pending.values.first(where: { $0.outcome == nil && $0.context === context }) {
            request.eventBytes += bytes
            request.events.append(event)
            if request.events.count > Self.eventLimit || request.eventBytes > limits.output {
                flooded(child, request.plugin, in: request)
            }
            return []
        }
        looseBytes += bytes
        looseCount += 1
        guard looseCount > Self.eventLimit || looseBytes > limits.output else { return [event] }
        if let plugin = pending.values.first?.plugin { flooded(child, plugin, in: nil) }
        return []
    }

    /// Kills a child that sent more events than one call (`request`, or none:
    /// from a plugin's own threads) may bring.
    private func flooded(_ child: ChildProcess, _ plugin: LoadedPlugin, in request: Pending?) {
        request?.events = []
        let source = request.map { "in \($0.what)" } ?? "from its own threads"
        let what = "emitted more than \(Self.eventLimit) events or \(limits.output) bytes of events \(source)"
        kill(child, plugin: plugin, .outputTooLarge, what, culprit: request)
    }

    /// Acts the sandbox refused while a request about `plugin` was served
    /// (or, with other calls in flight in the same child, while one of them
    /// was): to the host (its log and reports), and to the instance the call
    /// is about as `sandbox_denied` warnings. Called with `lock` held.
    private func noteDenials(_ denials: [SandboxDenial], of plugin: LoadedPlugin, context: InstanceContext?) {
        guard !denials.isEmpty else { return }
        // Logged once: by the instance when the call is about one (its log names the component), else by the host.
        report(plugin, denials, context != nil)
        guard let context else { return }
        context.record(denials.map { $0.warning(pluginID: plugin.info.id, instanceID: context.instanceID) })
    }

    // MARK: When a child ends

    /// Makes no new call (they fail with `host_shut_down`), waits until
    /// `until` for the calls in flight, then ends the child: asked to leave
    /// when nothing is in flight, else killed, the calls still in flight
    /// failing with `host_shut_down`. Returns once the child is reaped.
    func close(by until: ContinuousClock.Instant) {
        lock.lock()
        defer { lock.unlock() }
        closed = GraftError(.hostShutDown, "the host is shutting down: no plugin call is made any more.")
        func inFlight() -> Bool { pending.values.contains { $0.outcome == nil && $0.until != nil } }
        while inFlight(), ContinuousClock.now < until {
            lock.wait(forSeconds: (until - .now) / .seconds(1))
        }
        guard let child else { return }
        let late = GraftError(.hostShutDown, "the host shut down before this call ended; its process was stopped.")
        if inFlight(), reading {
            // The reader finds the channel closed, fails the calls and reaps the child.
            doomed = (child, nil, late)
            Glibc.kill(child.pid, SIGKILL)
            while self.child === child || reading { lock.wait(forSeconds: 0.05) }
            child.stop()
            return
        }
        if inFlight() {
            child.stop()
        } else {
            if !queued.isEmpty { _ = child.send(frames: queued) }
            child.finish()
        }
        reset(child) { self.failure(of: $0, culprit: nil, late) }
    }

    /// Forgets `child` (if it is the current one) and fails every request in
    /// flight on it with `failure(request)`.
    private func reset(_ child: ChildProcess, _ failure: (Pending) -> GraftError) {
        guard self.child === child else { return }
        self.child = nil
        slots = [:]
        servedPlugins = []
        contexts = [:]
        unanswered = []
        queued = []
        unclaimed = [:]
        unclaimedCount = 0
        for request in pending.values where request.outcome == nil { request.outcome = .failure(failure(request)) }
        // Answers kept for a collect that has not come are lost with the child.
        pending = pending.filter { $0.value.until != nil }
        lock.broadcast()
    }

    /// The child closed its channel: it died. Every call in flight fails
    /// with how (or, when another caller killed it, with why).
    private func died(_ child: ChildProcess) {
        guard self.child === child else { return }
        let ended = child.termination()
        let first = pending.values.filter { $0.outcome == nil }.min { $0.id < $1.id }
        if let first { noteDenials(child.sandboxDenials(), of: first.plugin, context: first.context) }
        if let doomed, doomed.child === child {
            self.doomed = nil
            let culprit = doomed.culprit.flatMap { pending[$0] }
            reset(child) { self.failure(of: $0, culprit: culprit, doomed.error) }
            return
        }
        let memoryLimit = limits.memory.flatMap { child.peakMemory >= Int($0 / 2) ? $0 : nil }
        func error(for request: Pending) -> GraftError {
            let plugin = request.plugin
            let what = request.sendFailed ? "between two calls (found when sending \(request.what))" : request.what
            if let memoryLimit {
                return GraftError(
                    .pluginMemoryLimit,
                    "plugin '\(plugin.info.id)' (\(plugin.info.path)) reached its memory limit (\(memoryLimit >> 20) MiB) in \(what): its process \(ended) having reserved \(child.peakMemory >> 20) MiB. It starts again on the next call.",
                    path: plugin.info.path)
            }
            let stage = request.kind == .load && !request.sendFailed ? " while it was loaded" : ""
            return GraftError(
                .pluginCrashed,
                "plugin '\(plugin.info.id)' (\(plugin.info.path)) crashed in \(what): its process \(ended)\(stage). It starts again on the next call.",
                path: plugin.info.path)
        }
        if let first { noteCrash(of: first.plugin, error(for: first)) }
        reset(child) { request in
            var crash = error(for: request)
            if let held = self.quarantined[ObjectIdentifier(request.plugin)] { crash.message += " " + held.message }
            return crash
        }
    }

    /// What a call in flight on a stopped child fails with: `cause` if it is
    /// the culprit, or at shutdown; else `plugin_restarted`, for another call's fault.
    private func failure(of request: Pending, culprit: Pending?, _ cause: GraftError) -> GraftError {
        guard request !== culprit, cause.code != .hostShutDown else { return cause }
        return GraftError(
            .pluginRestarted,
            "the process of plugin '\(request.plugin.info.id)' was stopped while it served \(request.what), for another call: \(cause.message)",
            path: request.plugin.info.path)
    }

    /// Kills a child whose runner broke the protocol (`plugin_crashed`).
    @discardableResult
    private func abandon(_ child: ChildProcess, plugin: LoadedPlugin, _ reason: String) -> GraftError {
        let message = "plugin '\(plugin.info.id)': its runner \(reason); the process was killed."
        return kill(child, plugin: plugin, GraftError(.pluginCrashed, message, path: plugin.info.path))
    }

    /// Kills a child that `plugin` made break a limit.
    @discardableResult
    private func kill(
        _ child: ChildProcess, plugin: LoadedPlugin, _ code: GraftError.Code, _ what: String, culprit: Pending? = nil
    ) -> GraftError {
        kill(child, plugin: plugin, GraftError(
            code, "plugin '\(plugin.info.id)' \(what); its process was killed and starts again on the next call.",
            path: plugin.info.path), culprit: culprit)
    }

    /// Kills a child that broke a rule or a limit: what the sandbox refused
    /// it is reported, the crash counts towards quarantine, `error` is
    /// returned, and is what `culprit` fails with (the others in flight,
    /// innocent, fail with `plugin_restarted`). While another caller reads
    /// the channel, the child is only sent SIGKILL here: that reader finds
    /// it closed and fails the calls.
    @discardableResult
    private func kill(_ child: ChildProcess, plugin: LoadedPlugin, _ error: GraftError, culprit: Pending? = nil) -> GraftError {
        guard self.child === child else { return error }
        noteCrash(of: plugin, error)
        if reading {
            doomed = (child, culprit?.id, error)
            Glibc.kill(child.pid, SIGKILL)
            return error
        }
        child.stop()
        noteDenials(child.sandboxDenials(), of: plugin, context: culprit?.context)
        reset(child) { self.failure(of: $0, culprit: culprit, error) }
        return error
    }

    /// Three crashes within a minute quarantine the plugin.
    private func noteCrash(of plugin: LoadedPlugin, _ error: GraftError) {
        let key = ObjectIdentifier(plugin)
        let now = ContinuousClock.now
        var times = (crashes[key] ?? []).filter { now - $0 < Self.crashWindow }
        times.append(now)
        crashes[key] = times
        logger.error("\(error)")
        guard times.count >= Self.crashesBeforeQuarantine, quarantined[key] == nil else { return }
        let held = GraftError(
            error.code,
            "plugin '\(plugin.info.id)' (\(plugin.info.path)) crashed \(times.count) times within \(Self.crashWindow): it is quarantined until its file changes (`graft quarantine clear \(plugin.info.path)` lifts it). Last: \(error.message)",
            path: plugin.info.path)
        quarantined[key] = held
        quarantine(plugin, held)
    }
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

// MARK: - The child's end of a load (its host's end is `slot(for:in:)`)

extension RunnerService.Server {
    /// Maps the file the host sent (with its descriptor) in a host of its
    /// own, and says what it declares here: the host holds it to what the
    /// scan saw.
    func serveLoad(_ reader: inout WireReader, descriptor: Int32) throws -> (Wire.Kind, [UInt8]) {
        let path = try reader.string(), realPath = try reader.string(), copy = try reader.bool()
        guard descriptor >= 0 else { throw GraftError(.pluginNotFound, "\(path) arrived without its descriptor.", path: path) }
        let file = try PluginFile(adopting: descriptor, path: path, realPath: realPath)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, mapping: .atStart),
            logger: logger)
        let plugin = try host.loadInRunner(file, mapping: ChildSandbox.mapping(copy: copy))
        let slot = keep(host)
        var writer = WireWriter()
        writer.u32(slot)
        writer.plugin(plugin.info)
        return (.loaded, writer.bytes)
    }
}
