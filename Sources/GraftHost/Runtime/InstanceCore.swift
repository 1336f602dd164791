import CGraft
import Logging

/// The host's side of one live component (`ComponentInstance` is what a host
/// app holds): the plugin's handle, the inputs, the C context. Calls into it
/// are serialized under `live` (the `[instance-serialized]` rule of graft.h).
///
/// The plugin's side lives in this process (a C instance pointer) or, for a
/// host that isolates its plugins, in a runner child (see `PluginRunner`).
/// Every method works the same either way. When an isolated plugin's process
/// dies, the call that killed it fails (`plugin_crashed`, `plugin_timeout`);
/// the next call re-creates the instance in a new process from its last
/// inputs, with a `plugin_restarted` warning (its state is lost).
///
/// Hot swap moves a core to a new build of its plugin: the same core, the
/// same inputs, and the state when both builds can carry it. The host tracks
/// cores strongly until they close, so tracking needs no weak reference (a
/// side table per instance and slow reference counting on every call).
///
/// `@unchecked Sendable`: the C context pointer is written once at init and
/// only read by the plugin afterwards; everything mutable is behind `live`.
final class InstanceCore: @unchecked Sendable {
    let id: String
    private let context: InstanceContext
    private let cContext: UnsafeMutablePointer<graft_component_context_t>
    private let live: Locked<Live>
    /// Told once when the instance closes, so the host stops tracking it.
    private let tracker: InstanceTracker?

    /// The plugin's side of the instance.
    enum Handle: @unchecked Sendable {
        /// In this process: the plugin's pointer, valid until destroy.
        case local(UnsafePointer<graft_component_instance_t>)
        /// In a runner child.
        case remote(PluginRunner, PluginRunner.Instance)
    }

    struct Live: @unchecked Sendable {
        // Only touched with the mutex held.
        var handle: Handle?
        var component: RegisteredComponent
        var inputs: [String: GraftValue]
        /// A render sent with the create (isolated plugins): the request's id
        /// and the media type it asked for.
        var prefetch: (id: UInt32, mediaType: MediaType)?
        /// Whether a call has been made since the create.
        var called = false
        /// Reused by every local render (calls into an instance are serialized);
        /// given back for another instance when this one closes.
        var output: OutputWriter?
        /// How the render sent with the create failed (its process died or
        /// hung; the instance was created again on a new one): what the first
        /// call, if a render, reports.
        var firstRenderFailure: GraftError?
    }

    init(
        id: String, component: RegisteredComponent, inputs: [String: GraftValue], containerSize: ContainerSize,
        logger: Logger, onEvent: @escaping @Sendable (EmittedEvent) -> Void,
        tracker: InstanceTracker? = nil
    ) throws(GraftError) {
        self.id = id
        self.tracker = tracker
        self.context = InstanceContext(
            instanceID: id, component: component, containerSize: containerSize, logger: logger, onEvent: onEvent)
        self.cContext = context.makeCContext()
        let created: Handle
        var prefetch: (id: UInt32, mediaType: MediaType)?
        var firstRenderFailure: GraftError?
        let renderAhead = component.plugin.runner?.firstRender(of: component)
        do throws(GraftError) {
            do throws(GraftError) {
                (created, prefetch) = try Self.create(
                    component: component, inputs: inputs, context: context, cContext: cContext, renderingAhead: renderAhead)
            } catch where renderAhead != nil && Self.runnerFailures.contains(error.code) {
                // The create and the render sent with it answer together:
                // the process died (or hung) in one of them. Created again on
                // a new process, alone: if that works, the render failed.
                (created, _) = try Self.create(component: component, inputs: inputs, context: context, cContext: cContext)
                firstRenderFailure = error
            }
        } catch {
            cContext.deinitialize(count: 1)
            cContext.deallocate()
            throw error
        }
        self.live = Locked(
            Live(handle: created, component: component, inputs: inputs, prefetch: prefetch, firstRenderFailure: firstRenderFailure))
    }

    /// A runner's process died, hung or ran out of memory.
    static let runnerFailures: Set<GraftError.Code> = [.pluginCrashed, .pluginTimeout, .pluginMemoryLimit]

    /// Creates the plugin's instance. Isolated, with `renderingAhead` (the
    /// media type the last instance of this component was first rendered
    /// in): a render goes in the same write as the create, and its answer
    /// with the create's, so the first `render` finds it on the way (one
    /// round trip saved). If the process dies in either, the caller cannot
    /// tell which: it creates again, alone.
    private static func create(
        component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext,
        cContext: UnsafeMutablePointer<graft_component_context_t>, renderingAhead prefetchType: MediaType? = nil
    ) throws(GraftError) -> (Handle, prefetch: (id: UInt32, mediaType: MediaType)?) {
        if let runner = component.plugin.runner {
            let size = context.containerSize
            var follower: (kind: Wire.Kind, payload: [UInt8])?
            if let prefetchType {
                var writer = WireWriter()
                writer.u32(Wire.justCreated)
                writer.string(prefetchType.rawValue)
                follower = (.render, writer.bytes)
            }
            let what = "create of \(component.contract.reference) (instance '\(context.instanceID)')\(follower == nil ? "" : " with its first render")"
            let (answer, generation, followerID) = try runner.call(
                .create, plugin: component.plugin, what: what, context: context, then: follower
            ) { writer, slot in
                writer.u32(slot)
                writer.string(component.contract.key)
                writer.u32(UInt32(component.contract.version))
                writer.value(.object(inputs))
                writer.f64(size.width)
                writer.f64(size.height)
            }
            var reader = answer.reader
            guard answer.kind == .created, let number = try? reader.u32() else {
                if let followerID { runner.forget(followerID) }
                throw GraftError(.instanceCreateFailed, "the runner of \(component.pluginPath) answered create with \(answer.kind).")
            }
            context.record((try? reader.warnings(instanceID: context.instanceID)) ?? [])
            let instance = PluginRunner.Instance(generation: generation, number: number)
            runner.attach(context, to: instance)
            guard let followerID, let prefetchType else { return (.remote(runner, instance), nil) }
            return (.remote(runner, instance), (id: followerID, mediaType: prefetchType))
        }
        let (forwarded, warnings) = DriftCheck.bind(inputs, to: component.contract, instanceID: context.instanceID)
        context.record(warnings)
        guard let factory = try component.plugin.mapped().componentFactory, let create = factory.pointee.create else {
            throw GraftError(.instanceCreateFailed, "\(component.pluginPath) has no component factory.", key: component.contract.key)
        }
        let instance = component.contract.key.withCString { key in
            GraftValue.object(forwarded).withCValue { inputs in
                create(factory, key, UInt32(component.contract.version), inputs, UnsafePointer(cContext))
            }
        }
        guard let instance, instance.pointee.render != nil, instance.pointee.destroy != nil else {
            if let instance { instance.pointee.destroy?(instance) }
            throw GraftError(
                .instanceCreateFailed,
                "plugin '\(component.pluginID)' (\(component.pluginPath)) could not create \(component.contract.reference)\(instance == nil ? "" : ": the instance lacks render or destroy").",
                path: component.pluginPath, key: component.contract.key)
        }
        return (.local(instance), nil)
    }

    deinit {
        close()
        cContext.deinitialize(count: 1)
        cContext.deallocate()
    }

    var component: RegisteredComponent { live.withLock { $0.component } }

    var inputs: [String: GraftValue] { live.withLock { $0.inputs } }

    var isClosed: Bool { live.withLock { $0.handle == nil } }

    var warnings: [GraftWarning] { context.warnings }

    func takeWarnings() -> [GraftWarning] { context.takeWarnings() }

    var containerSize: ContainerSize {
        get { context.containerSize }
        set {
            context.containerSize = newValue
            _ = try? remoteCall(.resize, "resize") { writer in
                writer.f64(newValue.width)
                writer.f64(newValue.height)
            }
        }
    }

    // MARK: Calls

    /// Runs `body` on the live handle, under the instance's lock.
    private func withHandle<T>(
        _ body: (inout Live, Handle) throws(GraftError) -> T
    ) throws(GraftError) -> T {
        let result: Result<T, GraftError> = live.withLock { live in
            guard let handle = live.handle else { return .failure(closedError(live.component)) }
            do throws(GraftError) {
                return .success(try body(&live, handle))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// One call on a remote handle, re-creating the instance first if its
    /// process restarted since. Nil for a local handle.
    private func remote(
        _ live: inout Live, _ kind: Wire.Kind, _ what: String, deadline: Duration? = nil, rendering: MediaType? = nil,
        _ payload: (inout WireWriter) -> Void
    ) throws(GraftError) -> PluginRunner.Answer? {
        guard case .remote(let runner, var instance) = live.handle else { return nil }
        let description = "\(what) of \(live.component.contract.reference) (instance '\(id)')"
        if !live.called {
            live.called = true
            runner.noteFirstCall(on: live.component, rendering: rendering)
            if let failure = live.firstRenderFailure {
                live.firstRenderFailure = nil
                if rendering != nil { throw failure }
            }
        }
        if let prefetch = live.prefetch {
            live.prefetch = nil
            if let rendering, prefetch.mediaType == rendering {
                do throws(GraftError) {
                    return try runner.collect(prefetch.id, plugin: live.component.plugin, what: description, instance: instance)
                } catch where error.code == .pluginRestarted {
                    // Its process restarted: asked again below, on a re-created instance.
                }
            } else {
                runner.forget(prefetch.id)
            }
        }
        for attempt in 0..<2 {
            do throws(GraftError) {
                let (answer, _, _) = try runner.call(kind, plugin: live.component.plugin, what: description, instance: instance, deadline: deadline) { writer, _ in
                    writer.u32(instance.number)
                    payload(&writer)
                }
                return answer
            } catch where error.code == .pluginRestarted && attempt == 0 {
                let (recreated, _) = try Self.create(component: live.component, inputs: live.inputs, context: context, cContext: cContext)
                live.handle = recreated
                if case .remote(_, let fresh) = recreated { instance = fresh }
                context.record([GraftWarning(
                    .pluginRestarted,
                    "instance '\(id)' of \(live.component.contract.reference) was re-created from its last inputs: the process of plugin '\(live.component.pluginID)' restarted, and its state was lost.",
                    instanceID: id)])
            }
        }
        throw GraftError(.pluginRestarted, "the process of plugin '\(live.component.pluginID)' keeps restarting.")
    }

    private func remoteCall(_ kind: Wire.Kind, _ what: String, _ payload: (inout WireWriter) -> Void) throws(GraftError) -> PluginRunner.Answer? {
        try withHandle { (live, _) throws(GraftError) in try remote(&live, kind, what, payload) }
    }

    /// The warnings that close every answer about an instance.
    private func recordWarnings(_ reader: inout WireReader) {
        context.record((try? reader.warnings(instanceID: id)) ?? [])
    }

    func render(as mediaType: MediaType = .plain) throws(GraftError) -> Rendering {
        try render(as: mediaType, outputLimit: OutputWriter.defaultLimit).rendering
    }

    /// Renders, writing at most `outputLimit` bytes; says whether the output was cut.
    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        try withHandle { (live, handle) throws(GraftError) in
            if var answer = try remote(&live, .render, "render", rendering: mediaType, { $0.string(mediaType.rawValue) }) {
                guard answer.kind == .rendered, let type = try? answer.reader.string(), let text = try? answer.reader.string() else {
                    throw GraftError(.renderFailed, "the runner of \(live.component.pluginPath) answered render with \(answer.kind).")
                }
                // The limit holds here, whatever the child says it checked.
                if let limit = live.component.plugin.runner?.limits.output, text.utf8.count > limit {
                    throw GraftError(
                        .outputTooLarge,
                        "\(live.component.contract.reference) from plugin '\(live.component.pluginID)' answered a render of \(text.utf8.count) bytes, more than the \(limit) allowed; the output was refused.",
                        key: live.component.contract.key)
                }
                recordWarnings(&answer.reader)
                return (Rendering(mediaType: MediaType(rawValue: type), text: text), false)
            }
            guard case .local(let instance) = handle else { throw closedError(live.component) }
            let output: OutputWriter
            if let kept = live.output {
                kept.reset(limit: outputLimit)
                output = kept
            } else {
                output = OutputWriter.take(limit: outputLimit)
                live.output = output
            }
            let ok = output.withWriter { writer in instance.pointee.render!(instance, mediaType.rawValue, writer) }
            // A component whose write was refused past the limit usually gives
            // up: that is the limit's doing, not a failure of its own.
            guard ok || output.overflowed else {
                let component = live.component
                throw GraftError(
                    .renderFailed, "\(component.contract.reference) from plugin '\(component.pluginID)' failed to render.",
                    path: component.pluginPath, key: component.contract.key)
            }
            if output.overflowed {
                context.record([GraftWarning(
                    .renderFailed, "instance '\(id)' wrote more than \(output.limit) bytes; the output was cut.", instanceID: id)])
            }
            return (
                Rendering(mediaType: output.mediaType.map(MediaType.init(rawValue:)) ?? mediaType, text: output.text),
                output.overflowed
            )
        }
    }

    @discardableResult
    func interact(_ action: String, data: GraftValue? = nil) -> Bool {
        switch forwardInteraction(action, data: data) {
        case .failed: return false
        case .answeredInChild(let answered): return answered
        case .answered(let answered):
            explain(action, answered: answered)
            return answered
        }
    }

    /// The contract's view of one answer. A 1.0 component declares nothing,
    /// so nothing more is known about it.
    private func explain(_ action: String, answered: Bool) {
        // The declared list alone, not the whole contract: this runs on every interaction.
        let component = self.component
        let interactions = component.contract.interactions
        guard !interactions.isEmpty else { return }
        if !interactions.contains(where: { $0.name == action }) {
            let declared = interactions.map(\.name)
            let outcome = answered ? "the plugin answered it anyway" : "the plugin refused it"
            context.record([GraftWarning(
                .unknownInteraction,
                "\(component.reference) does not declare the interaction '\(action)'; it declares \(declared.joined(separator: ", ")) (\(outcome)).\(NearMiss.hint(for: action, among: declared))",
                instanceID: id)])
        } else if !answered {
            context.record([GraftWarning(
                .interactionRefused, "\(component.reference) refused the interaction '\(action)': the plugin answered false (its data or its state did not suit it).",
                instanceID: id)])
        }
    }

    private enum InteractionOutcome {
        /// The call did not complete; a warning says why.
        case failed
        /// An isolated child's instance answered, and has already recorded
        /// its own warnings (forwarded with the answer).
        case answeredInChild(Bool)
        case answered(Bool)
    }

    private func forwardInteraction(_ action: String, data: GraftValue?) -> InteractionOutcome {
        do throws(GraftError) {
            return try withHandle { (live, handle) throws(GraftError) -> InteractionOutcome in
                if var answer = try remote(&live, .interact, "interact '\(action)'", { writer in
                    writer.string(action)
                    writer.bool(data != nil)
                    if let data { writer.value(data) }
                }) {
                    let answered = (try? answer.reader.bool()) ?? false
                    recordWarnings(&answer.reader)
                    return .answeredInChild(answered)
                }
                guard case .local(let instance) = handle, let interact = instance.pointee.interact else { return .answered(false) }
                guard let data else { return .answered(action.withCString { interact(instance, $0, nil) }) }
                return .answered(action.withCString { name in data.withCValue { interact(instance, name, $0) } })
            }
        } catch {
            context.record([GraftWarning(error.code, error.message, instanceID: id)])
            return .failed
        }
    }

    func update(inputs: [String: GraftValue]) throws(GraftError) {
        try withHandle { (live, handle) throws(GraftError) in
            if var answer = try remote(&live, .update, "update", { $0.value(.object(inputs)) }) {
                _ = try? answer.reader.bool()
                recordWarnings(&answer.reader)
                live.inputs = inputs
                return
            }
            guard case .local(let instance) = handle else { throw closedError(live.component) }
            let (forwarded, warnings) = DriftCheck.bind(inputs, to: live.component.contract, instanceID: id)
            context.record(warnings)
            if let update = instance.pointee.update_inputs {
                if GraftValue.object(forwarded).withCValue({ update(instance, $0) }) {
                    live.inputs = inputs
                    return
                }
            }
            _ = try replace(&live, with: live.component, inputs: inputs)
        }
    }

    /// What moving an instance to a new build did.
    enum Recreation: Sendable, Hashable {
        /// Recreated, and the state was carried across.
        case stateCarried
        /// Recreated fresh: one of the builds cannot save or load state, or
        /// the new one did not understand the old one's state.
        case startedFresh
    }

    /// Moves the instance to `component` (a new build of its plugin, same key
    /// and version), with the same inputs, carrying state when both builds
    /// can. On failure the instance stays on its old build.
    func move(to component: RegisteredComponent) throws(GraftError) -> Recreation {
        try withHandle { (live, _) throws(GraftError) in try replace(&live, with: component, inputs: live.inputs) }
    }

    /// Creates the replacement first and destroys the old instance only once
    /// it exists, so a failure leaves everything as it was. The old build's
    /// image stays loaded until the old instance is destroyed: `live` holds
    /// its component until the end of this function.
    private func replace(
        _ live: inout Live, with component: RegisteredComponent, inputs: [String: GraftValue]
    ) throws(GraftError) -> Recreation {
        guard let old = live.handle else { throw closedError(live.component) }
        let state = saveState(&live)
        context.component = component
        let replacement: Handle
        do throws(GraftError) {
            (replacement, _) = try Self.create(component: component, inputs: inputs, context: context, cContext: cContext)
        } catch {
            context.component = live.component
            throw error
        }
        destroy(old, plugin: live.component.plugin, prefetch: live.prefetch?.id)
        live.prefetch = nil
        live.handle = replacement
        live.component = component
        live.inputs = inputs
        let carried = state.map { loadState(&live, $0) } ?? false
        return carried ? .stateCarried : .startedFresh
    }

    /// The component's saved state, or nil when it does not save state.
    func saveState() -> [UInt8]? {
        (try? withHandle { (live, _) throws(GraftError) in saveState(&live) }) ?? nil
    }

    /// Restores state from `saveState`. Returns false when not understood.
    @discardableResult
    func loadState(_ state: [UInt8]) -> Bool {
        (try? withHandle { (live, _) throws(GraftError) in loadState(&live, state) }) ?? false
    }

    private func saveState(_ live: inout Live) -> [UInt8]? {
        switch live.handle {
        case .local(let instance):
            guard let save = instance.pointee.save_state else { return nil }
            let output = OutputWriter()
            let ok = output.withWriter { save(instance, $0) }
            return ok && !output.overflowed ? output.bytes : nil
        case .remote:
            guard var answer = try? remote(&live, .saveState, "save_state", { _ in }), answer.kind == .state,
                (try? answer.reader.bool()) == true, let count = try? answer.reader.u32(),
                let bytes = try? answer.reader.raw(Int(count))
            else { return nil }
            return Array(bytes)
        case nil:
            return nil
        }
    }

    private func loadState(_ live: inout Live, _ state: [UInt8]) -> Bool {
        switch live.handle {
        case .local(let instance):
            guard let load = instance.pointee.load_state else { return false }
            return state.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { load(instance, $0.baseAddress, $0.count) }
            }
        case .remote:
            guard var answer = try? remote(&live, .loadState, "load_state", { writer in
                writer.u32(UInt32(state.count))
                writer.bytes += state
            }) else { return false }
            let loaded = (try? answer.reader.bool()) ?? false
            recordWarnings(&answer.reader)
            return loaded
        case nil:
            return false
        }
    }

    private func destroy(_ handle: Handle, plugin: LoadedPlugin, prefetch: UInt32? = nil) {
        switch handle {
        case .local(let instance):
            instance.pointee.destroy!(instance)
        case .remote(let runner, let instance):
            runner.detach(instance)
            if let prefetch { runner.forget(prefetch) }
            // Not waited for (its answer is skipped); a process that restarted
            // has no such instance any more, and nothing is sent.
            runner.post(.destroy, plugin: plugin, instance: instance) { $0.u32(instance.number) }
        }
    }

    func close() {
        let closed: Bool = live.withLock { live in
            guard let handle = live.handle else { return false }
            live.handle = nil
            if !live.called, case .remote(let runner, _) = handle { runner.noteFirstCall(on: live.component, rendering: nil) }
            destroy(handle, plugin: live.component.plugin, prefetch: live.prefetch?.id)
            live.prefetch = nil
            if let output = live.output {
                live.output = nil
                OutputWriter.giveBack(output)
            }
            return true
        }
        if closed { tracker?.closed(self) }
    }

    private func closedError(_ component: RegisteredComponent) -> GraftError {
        GraftError(.instanceClosed, "instance '\(id)' of \(component.contract.reference) is closed.", key: component.contract.key)
    }
}
