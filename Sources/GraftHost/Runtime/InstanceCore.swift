import CGraft
import Logging

/// The host's side of one live component (`ComponentInstance` is what a host
/// app holds): the inputs, the C context, the warnings, and the plugin's side
/// of the instance (`InstanceSide`: in this process, or in a runner child for
/// a host that isolates its plugins), called under `live` (the
/// `[instance-serialized]` rule of graft.h). Every method works the same on
/// either side.
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

    struct Live: @unchecked Sendable {
        // Only touched with the mutex held.
        var side: (any InstanceSide)?
        var component: RegisteredComponent
        var inputs: [String: GraftValue]
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
        let side: any InstanceSide
        do throws(GraftError) {
            if let telemetry = component.plugin.telemetry {
                let (context, cContext) = (context, cContext)
                let plugin = component.plugin
                side = try telemetry.measure(.create, cpu: { plugin.cpuTime }) { () throws(GraftError) in
                    try component.makeSide(inputs: inputs, context: context, cContext: cContext, renderingAhead: true)
                }
            } else {
                side = try component.makeSide(inputs: inputs, context: context, cContext: cContext, renderingAhead: true)
            }
        } catch {
            cContext.deinitialize(count: 1)
            cContext.deallocate()
            throw error
        }
        self.live = Locked(Live(side: side, component: component, inputs: inputs))
    }

    deinit {
        close()
        cContext.deinitialize(count: 1)
        cContext.deallocate()
    }

    var component: RegisteredComponent { live.withLock { $0.component } }

    var inputs: [String: GraftValue] { live.withLock { $0.inputs } }

    var isClosed: Bool { live.withLock { $0.side == nil } }

    var warnings: [GraftWarning] { context.warnings }

    func takeWarnings() -> [GraftWarning] { context.takeWarnings() }

    func record(_ warning: GraftWarning) { context.record([warning]) }

    var containerSize: ContainerSize {
        get { context.containerSize }
        set {
            context.containerSize = newValue
            try? withSide { (_, side) throws(GraftError) in side.resize(to: newValue) }
        }
    }

    // MARK: Calls

    /// Runs `body` on the live side, under the instance's lock; as the
    /// plugin's call `call` (counted, timed and traced) when given one.
    private func withSide<T>(
        _ call: PluginCall? = nil, _ body: (inout Live, any InstanceSide) throws(GraftError) -> T
    ) throws(GraftError) -> T {
        let result: Result<T, GraftError> = live.withLock { live in
            guard let side = live.side else { return .failure(closedError(live.component)) }
            do throws(GraftError) {
                if let call, let telemetry = live.component.plugin.telemetry {
                    let plugin = live.component.plugin
                    return .success(try telemetry.measure(call, cpu: { plugin.cpuTime }) { () throws(GraftError) in try body(&live, side) })
                }
                return .success(try body(&live, side))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    func render(as mediaType: MediaType = .plain) throws(GraftError) -> Rendering {
        try render(as: mediaType, outputLimit: OutputWriter.defaultLimit).rendering
    }

    /// Renders, writing at most `outputLimit` bytes; says whether the output was cut.
    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        try withSide(.render) { (_, side) throws(GraftError) in try side.render(as: mediaType, outputLimit: outputLimit) }
    }

    /// Whether the instance answered; a call that did not complete says why in a warning.
    @discardableResult
    func interact(_ action: String, data: GraftValue? = nil) -> Bool {
        do throws(GraftError) {
            return try withSide(.interact) { (_, side) throws(GraftError) in try side.interact(action, data: data) }
        } catch {
            context.record([GraftWarning(error.code, error.message, instanceID: id)])
            return false
        }
    }

    func update(inputs: [String: GraftValue]) throws(GraftError) {
        try withSide(.update) { (live, side) throws(GraftError) in
            if try side.update(inputs: inputs) {
                live.inputs = inputs
            } else {
                try replace(&live, with: live.component, inputs: inputs)
            }
        }
    }

    /// Moves the instance to `component` (a new build of its plugin, same key
    /// and version), with the same inputs, carrying state when both builds
    /// can; returns whether the state was carried (false: one of the builds
    /// cannot save or load state, or the new one did not understand the old
    /// one's). On failure the instance stays on its old build.
    func move(to component: RegisteredComponent) throws(GraftError) -> Bool {
        try withSide { (live, _) throws(GraftError) in try replace(&live, with: component, inputs: live.inputs) }
    }

    /// Creates the replacement first and destroys the old instance only once
    /// it exists, so a failure leaves everything as it was. The old build's
    /// image stays loaded until the old instance is destroyed: the old side
    /// holds its component.
    @discardableResult
    private func replace(
        _ live: inout Live, with component: RegisteredComponent, inputs: [String: GraftValue]
    ) throws(GraftError) -> Bool {
        guard let old = live.side else { throw closedError(live.component) }
        let state = old.saveState()
        context.component = component
        let replacement: any InstanceSide
        do throws(GraftError) {
            replacement = try component.makeSide(inputs: inputs, context: context, cContext: cContext)
        } catch {
            context.component = live.component
            throw error
        }
        old.destroy(closing: false)
        live.side = replacement
        live.component = component
        live.inputs = inputs
        return state.map { replacement.loadState($0) } ?? false
    }

    /// The component's saved state, or nil when it does not save state.
    func saveState() -> [UInt8]? {
        (try? withSide { (_, side) throws(GraftError) in side.saveState() }) ?? nil
    }

    /// Restores state from `saveState`. Returns false when not understood.
    @discardableResult
    func loadState(_ state: [UInt8]) -> Bool {
        (try? withSide { (_, side) throws(GraftError) in side.loadState(state) }) ?? false
    }

    func close() {
        let closed: Bool = live.withLock { live in
            guard let side = live.side else { return false }
            live.side = nil
            side.destroy(closing: true)
            return true
        }
        if closed { tracker?.closed(self) }
    }

    private func closedError(_ component: RegisteredComponent) -> GraftError {
        GraftError(.instanceClosed, "instance '\(id)' of \(component.contract.reference) is closed.", key: component.contract.key)
    }
}
