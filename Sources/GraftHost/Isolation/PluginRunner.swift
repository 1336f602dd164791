import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The host's side of one runner child (`graft-child serve`): it maps the
/// plugins given to it and serves their calls, so that a plugin that crashes,
/// hangs or allocates without bound takes down the child, not the host.
///
/// Calls are made on the caller's thread, one at a time per child (the lock).
/// Frames carry request ids, which lets two kinds of request travel without
/// a round trip of their own: a destroy (`post`, sent with the next request)
/// and a render sent behind its create (`call(then:)`, collected later). Every
/// call has a deadline: past it the child is killed and the call fails with
/// `plugin_timeout`. A child that dies mid-call fails that call with
/// `plugin_crashed` (the signal, or `plugin_memory_limit` when a memory limit
/// was set and reached). The child is started again on the next call; the
/// instances it held are re-created by their `ComponentInstance` from their
/// last inputs. A plugin that crashes its runner three times within a minute
/// is quarantined until its file changes.
final class PluginRunner: @unchecked Sendable {
    /// Limits every call on a runner obeys.
    struct Limits: Sendable, Hashable {
        var call: Duration
        var validator: Duration
        var load: Duration
        var memory: UInt64?
        var output: Int
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
    /// (a granted data folder that cannot be made); nil: unsandboxed.
    private let sandbox: Result<ChildSandbox.Request?, GraftError>
    /// Told of every act the sandbox refused a plugin of this runner.
    private let report: @Sendable (LoadedPlugin, [SandboxDenial]) -> Void

    // Guarded by `lock`.
    private let lock = Lock()
    private var child: ChildProcess?
    /// Bumped every time a child starts: instances of an older generation are gone.
    private var generation = 0
    private var slots: [ObjectIdentifier: UInt32] = [:]
    private var contexts: [UInt32: InstanceContext] = [:]
    private var nextID: UInt32 = 0
    private var crashes: [ObjectIdentifier: [ContinuousClock.Instant]] = [:]
    /// Whether the last request could not even be sent (the child had died
    /// between calls).
    private var sendFailed = false
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
    /// Pipelined requests (`call(then:)`) whose answers are still to come,
    /// and those that came during another call. Guarded by `lock`.
    private var expected: Set<UInt32> = []
    private var early: [UInt32: Answer] = [:]

    static let crashesBeforeQuarantine = 3
    static let crashWindow = Duration.seconds(60)

    init(
        executable: String, limits: Limits, mapsCopies: Bool, sandbox: Result<ChildSandbox.Request?, GraftError> = .success(nil),
        logger: Logger, open: @escaping @Sendable (LoadedPlugin) throws(GraftError) -> PluginFile,
        quarantine: @escaping @Sendable (LoadedPlugin, GraftError) -> Void,
        report: @escaping @Sendable (LoadedPlugin, [SandboxDenial]) -> Void = { _, _ in }
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
    var childPID: pid_t? {
        lock.lock()
        defer { lock.unlock() }
        return child?.pid
    }

    /// The host's descriptors for the running child (for tests).
    var childDescriptors: [Int32] {
        lock.lock()
        defer { lock.unlock() }
        return child?.descriptors ?? []
    }

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
        lock.lock()
        let result = Result { () throws(GraftError) in
            try callLocked(kind, plugin: plugin, what: what, instance: instance, deadline: deadline, context: context, follower: follower, payload)
        }
        let events = arrived
        arrived = []
        arrivedBytes = 0
        lock.unlock()
        // Outside the lock: a handler may call into the same plugin.
        for event in events { event.context.deliver(event.name, payload: event.payload, warnings: event.warnings) }
        return try result.get()
    }

    /// Events that arrived during the current call, delivered once it is over. Guarded by `lock`.
    private var arrived: [(context: InstanceContext, name: String, payload: GraftValue?, warnings: [GraftWarning])] = []
    /// Their bytes on the wire, counted as they arrive: past `limits.output`,
    /// or past `eventLimit` events, the call fails and the child is killed.
    private var arrivedBytes = 0
    static let eventLimit = 1024

    private func callLocked(
        _ kind: Wire.Kind, plugin: LoadedPlugin, what: String, instance: Instance?,
        deadline: Duration?, context: InstanceContext?, follower: (kind: Wire.Kind, payload: [UInt8])?,
        _ payload: (inout WireWriter, _ slot: UInt32) -> Void
    ) throws(GraftError) -> (answer: Answer, generation: Int, followerID: UInt32?) {
        if let held = quarantined[ObjectIdentifier(plugin)] { throw held }
        if let instance, instance.generation != generation || child == nil {
            throw GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted; \(what) must be re-created.")
        }
        if kind == .create, let context { pendingContext = context }
        currentContext = context ?? instance.flatMap { contexts[$0.number] }
        defer {
            pendingContext = nil
            currentContext = nil
        }
        for attempt in 0..<2 {
            sendFailed = false
            let child = try running()
            let posted = !unanswered.isEmpty
            do throws(GraftError) {
                let slot = try slot(for: plugin, in: child)
                var writer = WireWriter()
                payload(&writer, slot)
                let (answer, followerID) = try exchange(
                    kind, writer.bytes, then: follower, with: child, plugin: plugin, what: what, deadline: deadline ?? limits.call)
                return (answer, generation, followerID)
            } catch {
                // The child died, or was found dead, with requests posted
                // before this call still unanswered, or before this request
                // reached it: the death is likely not this call's. Once more,
                // on a new child (an instance is re-created there first).
                let notThisCall = posted || sendFailed
                guard attempt == 0, self.child == nil, notThisCall,
                    [.pluginCrashed, .pluginMemoryLimit, .pluginTimeout].contains(error.code)
                else { throw error }
                if instance != nil {
                    throw GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted; \(what) must be re-created.")
                }
                logger.notice("the runner of plugin '\(plugin.info.id)' died before \(what); trying it on a new process.")
            }
        }
        throw GraftError(.pluginCrashed, "plugin '\(plugin.info.id)': its runner could not serve \(what).", path: plugin.info.path)
    }

    /// Sends a request about an instance without waiting for its answer (a
    /// destroy: nothing the caller could do with a failure), with the next
    /// request or within `postDelay`. If the child dies before the next call
    /// is answered, that call is tried once more on a new child, since the
    /// death may be this request's.
    func post(_ kind: Wire.Kind, plugin: LoadedPlugin, instance: Instance, _ payload: (inout WireWriter) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard child != nil, instance.generation == generation else { return }
        var writer = WireWriter()
        payload(&writer)
        nextID &+= 1
        queued += Wire.frame(kind, id: nextID, payload: writer.bytes)
        unanswered.insert(nextID)
        if !lateSendScheduled {
            lateSendScheduled = true
            LateSends.shared.schedule(self, after: Self.postDelay)
        }
    }

    /// Sends what `post` queued, if no request took it along meanwhile.
    func sendQueued() {
        lock.lock()
        defer { lock.unlock() }
        lateSendScheduled = false
        guard let child, !queued.isEmpty else { return }
        _ = child.send(frames: queued)
        queued.removeAll(keepingCapacity: true)
    }

    /// Registers where `emitted` frames for `number` go (after `create`).
    func attach(_ context: InstanceContext, to instance: Instance) {
        lock.lock()
        defer { lock.unlock() }
        if instance.generation == generation { contexts[instance.number] = context }
    }

    /// Forgets an instance (after `destroy`, or when its owner goes).
    func detach(_ instance: Instance) {
        lock.lock()
        defer { lock.unlock() }
        if instance.generation == generation { contexts[instance.number] = nil }
    }

    /// The context of an instance being created, for events it emits before
    /// `create` answers. Guarded by `lock`.
    private var pendingContext: InstanceContext?

    private func running() throws(GraftError) -> ChildProcess {
        if let child { return child }
        var arguments = ["serve", "--output-limit", String(limits.output)]
        if let memory = limits.memory { arguments += ["--memory-limit", String(memory)] }
        let request = try sandbox.get()
        // A data folder granted to the plugin: the child learns where it is.
        let data = request?.policy.writeFolders.first
        let started = try ChildProcess.startGraftChild(
            executable: executable, arguments: arguments, environment: data.map { ["GRAFT_DATA_DIR": $0] } ?? [:],
            sandbox: request, logger: logger, onOutput: { self.logger.notice("runner: \($0)") })
        generation += 1
        slots = [:]
        contexts = [:]
        queued = []
        expected = []
        early = [:]
        child = started
        return started
    }

    private func slot(for plugin: LoadedPlugin, in child: ChildProcess) throws(GraftError) -> UInt32 {
        if let slot = slots[ObjectIdentifier(plugin)] { return slot }
        let file = try open(plugin)
        var writer = WireWriter()
        writer.string(file.path)
        writer.string(file.realPath)
        writer.bool(mapsCopies)
        // Queued frames first, on their own: the descriptor belongs to the load's bytes.
        if !queued.isEmpty {
            _ = child.send(frames: queued)
            queued.removeAll(keepingCapacity: true)
        }
        nextID &+= 1
        guard child.send(.load, id: nextID, payload: writer.bytes, descriptor: file.descriptor) else {
            throw died(child, plugin: plugin, what: "loading it", stage: "while it was loaded")
        }
        var answer = try wait(for: nextID, from: child, plugin: plugin, what: "loading it", deadline: limits.load)
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
        slots[ObjectIdentifier(plugin)] = slot
        return slot
    }

    private func exchange(
        _ kind: Wire.Kind, _ payload: [UInt8], then follower: (kind: Wire.Kind, payload: [UInt8])?,
        with child: ChildProcess, plugin: LoadedPlugin, what: String, deadline: Duration
    ) throws(GraftError) -> (Answer, UInt32?) {
        nextID &+= 1
        let id = nextID
        sendFailed = false
        // What `post` queued goes first, in the same write.
        var frames = queued
        queued.removeAll(keepingCapacity: true)
        frames += Wire.frame(kind, id: id, payload: payload)
        var followerID: UInt32?
        if let follower {
            nextID &+= 1
            followerID = nextID
            frames += Wire.frame(follower.kind, id: nextID, payload: follower.payload)
            expected.insert(nextID)
        }
        guard child.send(frames: frames) else {
            sendFailed = true
            throw died(child, plugin: plugin, what: "between two calls (found when sending \(what))", stage: "")
        }
        do throws(GraftError) {
            return (try wait(for: id, from: child, plugin: plugin, what: what, deadline: deadline), followerID)
        } catch {
            // The request failed without its child dying (a create the plugin
            // refused): nobody will collect the follower's answer; skip it.
            if let followerID, expected.remove(followerID) != nil { unanswered.insert(followerID) }
            throw error
        }
    }

    // MARK: Pipelined answers

    /// Waits for the answer to a request sent with `call(then:)`, or takes it
    /// if it came already. Fails with `plugin_restarted` if `instance`'s
    /// child is gone, as `call` does.
    func collect(_ id: UInt32, plugin: LoadedPlugin, what: String, instance: Instance) throws(GraftError) -> Answer {
        lock.lock()
        currentContext = contexts[instance.number]
        defer { currentContext = nil }
        let result = Result { () throws(GraftError) -> Answer in
            if instance.generation != generation || child == nil {
                throw GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted; \(what) must be re-created.")
            }
            var answer: Answer
            if let early = early.removeValue(forKey: id) {
                answer = early
            } else if let child, expected.contains(id) {
                answer = try wait(for: id, from: child, plugin: plugin, what: what, deadline: limits.call)
            } else {
                throw GraftError(.pluginRestarted, "the answer to \(what) was lost; \(what) must be asked again.")
            }
            if answer.kind == .failed {
                guard let error = try? answer.reader.childError(path: plugin.info.path) else {
                    throw GraftError(.pluginCrashed, "plugin '\(plugin.info.id)': its runner sent an error that does not decode for \(what).", path: plugin.info.path)
                }
                throw error
            }
            return answer
        }
        let events = arrived
        arrived = []
        arrivedBytes = 0
        lock.unlock()
        for event in events { event.context.deliver(event.name, payload: event.payload, warnings: event.warnings) }
        return try result.get()
    }

    /// Gives up on a pipelined answer: it is skipped when it arrives.
    func forget(_ id: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        if early.removeValue(forKey: id) == nil, expected.remove(id) != nil { unanswered.insert(id) }
    }

    /// The media type to render a new instance of `component` in, with its
    /// create: the one its last instance was first rendered in, if its first
    /// call was a render. Nil too when many such renders wait already (a host
    /// that creates instances and never uses them must not pile them up).
    func firstRender(of component: RegisteredComponent) -> MediaType? {
        lock.lock()
        defer { lock.unlock() }
        guard expected.count + early.count < Self.uncollectedLimit else { return nil }
        return rendersFirst[FirstCallKey(component)]
    }

    /// Pipelined answers not collected yet (for tests).
    var uncollected: Int {
        lock.lock()
        defer { lock.unlock() }
        return expected.count + early.count
    }

    /// Learns whether instances of `component` are rendered first (and in what).
    func noteFirstCall(on component: RegisteredComponent, rendering mediaType: MediaType?) {
        lock.lock()
        defer { lock.unlock() }
        let key = FirstCallKey(component)
        if rendersFirst[key] != mediaType { rendersFirst[key] = mediaType }
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

    private func wait(
        for id: UInt32, from child: ChildProcess, plugin: LoadedPlugin, what: String, deadline: Duration
    ) throws(GraftError) -> Answer {
        let until = ContinuousClock.now + deadline
        let output = { (line: String) in self.logger.notice("\(line)", metadata: ["plugin": "\(plugin.info.id)"]) }
        while true {
            switch child.receive(until: until, onOutput: output) {
            case .frame(let header, let payload):
                var reader = WireReader(payload)
                if header.kind == .emitted {
                    arrivedBytes += payload.count
                    guard arrived.count < Self.eventLimit, arrivedBytes <= limits.output else {
                        arrived = []
                        arrivedBytes = 0
                        throw kill(child, plugin: plugin, GraftError(
                            .outputTooLarge,
                            "plugin '\(plugin.info.id)' emitted more than \(Self.eventLimit) events or \(limits.output) bytes of events in \(what); its process was killed and starts again on the next call.",
                            path: plugin.info.path))
                    }
                    deliver(&reader)
                    continue
                }
                if unanswered.remove(header.id) != nil {
                    if header.kind == .failed, let error = try? reader.childError(path: plugin.info.path) { logger.warning("\(error)") }
                    continue
                }
                if header.id != id, expected.remove(header.id) != nil {
                    early[header.id] = Answer(kind: header.kind, reader: reader)
                    continue
                }
                expected.remove(header.id)
                noteDenials(child.sandboxDenials(before: child.lastFrameEnd), of: plugin)
                guard header.id == id else { throw abandon(child, plugin: plugin, "answered request \(header.id) while \(id) was asked") }
                if header.kind == .failed {
                    throw (try? reader.childError(path: plugin.info.path))
                        ?? abandon(child, plugin: plugin, "sent an error that does not decode, or carries a code only the host may give")
                }
                return Answer(kind: header.kind, reader: reader)
            case .closed:
                throw died(child, plugin: plugin, what: what, stage: "")
            case .timedOut:
                throw kill(child, plugin: plugin, GraftError(
                    .pluginTimeout,
                    "plugin '\(plugin.info.id)' (\(plugin.info.path)) did not answer \(what) within \(deadline); its process was killed and starts again on the next call.",
                    path: plugin.info.path))
            case .violation(let reason):
                throw abandon(child, plugin: plugin, "broke the protocol (\(reason))")
            }
        }
    }

    /// Acts the sandbox refused while a request about `plugin` was served:
    /// to the host (its log and reports), and to the instance the call is
    /// about as `sandbox_denied` warnings. Called with `lock` held.
    private func noteDenials(_ denials: [SandboxDenial], of plugin: LoadedPlugin) {
        guard !denials.isEmpty else { return }
        report(plugin, denials)
        guard let context = currentContext else { return }
        context.record(denials.map { $0.warning(pluginID: plugin.info.id, instanceID: context.instanceID) })
    }

    /// The instance the call under way concerns, if any. Guarded by `lock`.
    private var currentContext: InstanceContext?

    /// An event an instance emitted during the call: kept for delivery once
    /// the call is over and the lock released.
    private func deliver(_ reader: inout WireReader) {
        guard let number = try? reader.u32(), let event = try? reader.string(), let hasPayload = try? reader.bool() else { return }
        let payload = hasPayload ? try? reader.value() : nil
        guard let context = contexts[number] ?? pendingContext else { return }
        let warnings = (try? reader.warnings(instanceID: context.instanceID)) ?? []
        arrived.append((context, event, payload, warnings))
    }

    private func reset(_ child: ChildProcess) {
        if self.child === child {
            self.child = nil
            slots = [:]
            contexts = [:]
            unanswered = []
            queued = []
            expected = []
            early = [:]
        }
    }

    private func died(_ child: ChildProcess, plugin: LoadedPlugin, what: String, stage: String) -> GraftError {
        reset(child)
        let ended = child.termination()
        noteDenials(child.sandboxDenials(), of: plugin)
        var error: GraftError
        if let memory = limits.memory, child.peakMemory >= Int(memory / 2) {
            error = GraftError(
                .pluginMemoryLimit,
                "plugin '\(plugin.info.id)' (\(plugin.info.path)) reached its memory limit (\(memory >> 20) MiB) in \(what): its process \(ended) having reserved \(child.peakMemory >> 20) MiB. It starts again on the next call.",
                path: plugin.info.path)
        } else {
            error = GraftError(
                .pluginCrashed,
                "plugin '\(plugin.info.id)' (\(plugin.info.path)) crashed in \(what): its process \(ended)\(stage.isEmpty ? "" : " " + stage). It starts again on the next call.",
                path: plugin.info.path)
        }
        noteCrash(of: plugin, error)
        if let held = quarantined[ObjectIdentifier(plugin)] { error.message += " " + held.message }
        return error
    }

    private func abandon(_ child: ChildProcess, plugin: LoadedPlugin, _ reason: String) -> GraftError {
        kill(child, plugin: plugin, GraftError(
            .pluginCrashed, "plugin '\(plugin.info.id)': its runner \(reason); the process was killed.", path: plugin.info.path))
    }

    /// Kills a child that broke a rule or a limit: what the sandbox refused
    /// it is reported, the crash counts towards quarantine, `error` is returned.
    private func kill(_ child: ChildProcess, plugin: LoadedPlugin, _ error: GraftError) -> GraftError {
        reset(child)
        child.stop()
        noteDenials(child.sandboxDenials(), of: plugin)
        noteCrash(of: plugin, error)
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
    mutating func serveLoad(_ reader: inout WireReader, descriptor: Int32) throws -> (Wire.Kind, [UInt8]) {
        let path = try reader.string(), realPath = try reader.string(), copy = try reader.bool()
        guard descriptor >= 0 else { throw GraftError(.pluginNotFound, "\(path) arrived without its descriptor.", path: path) }
        let file = try PluginFile(adopting: descriptor, path: path, realPath: realPath)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, mapping: .atStart),
            logger: logger)
        let plugin = try host.loadInRunner(file, mapping: ChildSandbox.mapping(copy: copy))
        slots.append(host)
        var writer = WireWriter()
        writer.u32(UInt32(slots.count - 1))
        writer.plugin(plugin.info)
        return (.loaded, writer.bytes)
    }
}
