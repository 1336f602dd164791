import CGraft
import Logging

/// One live component created by a plugin. Calls into it are serialized (the
/// `[instance-serialized]` rule of graft.h); different instances may be used
/// from different threads at once. Events the component emits reach the
/// handler given at creation, with their drift warnings.
///
/// Hot swap can move an instance to a new build of its plugin: the same
/// object, the same inputs, and the state when both builds can carry it.
///
/// `@unchecked Sendable`: the C context pointer is written once at init and
/// only read by the plugin afterwards; everything mutable is behind `live`.
public final class ComponentInstance: @unchecked Sendable {
    public let id: String
    private let context: InstanceContext
    private let cContext: UnsafeMutablePointer<graft_component_context_t>
    private let live: Locked<Live>
    /// Called once when the instance closes, so the host stops tracking it.
    private let onClose: @Sendable (ObjectIdentifier) -> Void

    struct Live: @unchecked Sendable {
        // Only touched with the mutex held; the pointer is the plugin's until destroy.
        var instance: UnsafePointer<graft_component_instance_t>?
        var component: RegisteredComponent
        var inputs: [String: GraftValue]
    }

    init(
        id: String, component: RegisteredComponent, inputs: [String: GraftValue], containerSize: ContainerSize,
        logger: Logger, onEvent: @escaping @Sendable (EmittedEvent) -> Void,
        onClose: @escaping @Sendable (ObjectIdentifier) -> Void = { _ in }
    ) throws(GraftError) {
        self.id = id
        self.onClose = onClose
        self.context = InstanceContext(
            instanceID: id, component: component, containerSize: containerSize, logger: logger, onEvent: onEvent)
        self.cContext = context.makeCContext()
        let created: UnsafePointer<graft_component_instance_t>
        do throws(GraftError) {
            created = try Self.create(component: component, inputs: inputs, context: context, cContext: cContext)
        } catch {
            cContext.deinitialize(count: 1)
            cContext.deallocate()
            throw error
        }
        self.live = Locked(Live(instance: created, component: component, inputs: inputs))
    }

    private static func create(
        component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext,
        cContext: UnsafeMutablePointer<graft_component_context_t>
    ) throws(GraftError) -> UnsafePointer<graft_component_instance_t> {
        let (forwarded, warnings) = DriftCheck.bind(inputs, to: component.contract, instanceID: context.instanceID)
        context.record(warnings)
        let contract = component.contract
        guard let factory = try component.plugin.mapped().componentFactory, let create = factory.pointee.create else {
            throw GraftError(.instanceCreateFailed, "\(component.pluginPath) has no component factory.", key: contract.key)
        }
        let arena = CArena()
        let instance = create(
            factory, arena.cString(contract.key).pointer, UInt32(contract.version), arena.cValuePointer(.object(forwarded)),
            UnsafePointer(cContext))
        guard let instance, instance.pointee.render != nil, instance.pointee.destroy != nil else {
            if let instance { instance.pointee.destroy?(instance) }
            throw GraftError(
                .instanceCreateFailed,
                "plugin '\(component.pluginID)' (\(component.pluginPath)) could not create \(contract.reference)\(instance == nil ? "" : ": the instance lacks render or destroy").",
                path: component.pluginPath, key: contract.key)
        }
        return instance
    }

    deinit {
        close()
        cContext.deinitialize(count: 1)
        cContext.deallocate()
    }

    /// The component the instance is, and the plugin that provides it (a new
    /// build after a hot swap).
    public var component: RegisteredComponent { live.withLock { $0.component } }

    /// The inputs the instance was last given.
    public var inputs: [String: GraftValue] { live.withLock { $0.inputs } }

    /// Whether `close` has run.
    public var isClosed: Bool { live.withLock { $0.instance == nil } }

    /// Contract drift recorded so far: unknown or mistyped inputs, undeclared
    /// events, payloads off their schema, and the plugin's own warnings.
    public var warnings: [GraftWarning] { context.warnings }

    /// Returns the warnings recorded so far and clears them.
    public func takeWarnings() -> [GraftWarning] { context.takeWarnings() }

    public var containerSize: ContainerSize {
        get { context.containerSize }
        set { context.containerSize = newValue }
    }

    /// Renders in `mediaType` (the component may answer in another type).
    public func render(as mediaType: MediaType = .plain) throws(GraftError) -> Rendering {
        let result: Result<Rendering, GraftError> = live.withLock { live in
            guard let instance = live.instance else { return .failure(closedError(live.component)) }
            let output = OutputWriter()
            let ok = output.withWriter { writer in instance.pointee.render!(instance, mediaType.rawValue, writer) }
            guard ok else {
                let component = live.component
                return .failure(GraftError(
                    .renderFailed, "\(component.contract.reference) from plugin '\(component.pluginID)' failed to render.",
                    path: component.pluginPath, key: component.contract.key))
            }
            if output.overflowed {
                context.record([GraftWarning(
                    .renderFailed, "instance '\(id)' wrote more than \(output.limit) bytes; the output was cut.", instanceID: id)])
            }
            return .success(Rendering(mediaType: output.mediaType.map(MediaType.init(rawValue:)) ?? mediaType, text: output.text))
        }
        return try result.get()
    }

    /// Simulates a user interaction (a tap, a selection) named `action`.
    /// Returns false when the component does not know the action.
    @discardableResult
    public func interact(_ action: String, data: GraftValue? = nil) -> Bool {
        live.withLock { live in
            guard let instance = live.instance, let interact = instance.pointee.interact else { return false }
            let arena = CArena()
            return interact(instance, arena.cString(action).pointer, data.map { arena.cValuePointer($0) })
        }
    }

    /// Replaces the inputs. When the component cannot take them in place it is
    /// recreated with them (its state is carried when it can save and load it).
    public func update(inputs: [String: GraftValue]) throws(GraftError) {
        let result: Result<Void, GraftError> = live.withLock { live in
            guard let instance = live.instance else { return .failure(closedError(live.component)) }
            let (forwarded, warnings) = DriftCheck.bind(inputs, to: live.component.contract, instanceID: id)
            context.record(warnings)
            if let update = instance.pointee.update_inputs {
                let arena = CArena()
                if update(instance, arena.cValuePointer(.object(forwarded))) {
                    live.inputs = inputs
                    return .success(())
                }
            }
            do throws(GraftError) {
                _ = try replace(&live, with: live.component, inputs: inputs)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// What moving an instance to a new build did.
    public enum Recreation: Sendable, Hashable {
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
        let result: Result<Recreation, GraftError> = live.withLock { live in
            guard live.instance != nil else { return .failure(closedError(live.component)) }
            do throws(GraftError) {
                return .success(try replace(&live, with: component, inputs: live.inputs))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Creates the replacement first and destroys the old instance only once
    /// it exists, so a failure leaves everything as it was. The old build's
    /// image stays loaded until the old instance is destroyed: `live` holds
    /// its component until the end of this function.
    private func replace(
        _ live: inout Live, with component: RegisteredComponent, inputs: [String: GraftValue]
    ) throws(GraftError) -> Recreation {
        guard let old = live.instance else { throw closedError(live.component) }
        let state = Self.saveState(old)
        context.component = component
        let replacement: UnsafePointer<graft_component_instance_t>
        do throws(GraftError) {
            replacement = try Self.create(component: component, inputs: inputs, context: context, cContext: cContext)
        } catch {
            context.component = live.component
            throw error
        }
        old.pointee.destroy!(old)
        let carried = state.map { Self.loadState(replacement, $0) } ?? false
        live.instance = replacement
        live.component = component
        live.inputs = inputs
        return carried ? .stateCarried : .startedFresh
    }

    /// The component's saved state, or nil when it does not save state.
    public func saveState() -> [UInt8]? {
        live.withLock { live in live.instance.flatMap(Self.saveState) }
    }

    /// Restores state from `saveState`. Returns false when not understood.
    @discardableResult
    public func loadState(_ state: [UInt8]) -> Bool {
        live.withLock { live in live.instance.map { Self.loadState($0, state) } ?? false }
    }

    /// Destroys the plugin's instance. Later calls fail; closing twice is harmless.
    public func close() {
        let closed: Bool = live.withLock { live in
            guard let instance = live.instance else { return false }
            live.instance = nil
            instance.pointee.destroy!(instance)
            return true
        }
        if closed { onClose(ObjectIdentifier(self)) }
    }

    private static func saveState(_ instance: UnsafePointer<graft_component_instance_t>) -> [UInt8]? {
        guard let save = instance.pointee.save_state else { return nil }
        let output = OutputWriter()
        let ok = output.withWriter { save(instance, $0) }
        return ok && !output.overflowed ? output.bytes : nil
    }

    private static func loadState(_ instance: UnsafePointer<graft_component_instance_t>, _ state: [UInt8]) -> Bool {
        guard let load = instance.pointee.load_state else { return false }
        return state.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { load(instance, $0.baseAddress, $0.count) }
        }
    }

    private func closedError(_ component: RegisteredComponent) -> GraftError {
        GraftError(.instanceCreateFailed, "instance '\(id)' of \(component.contract.reference) is closed.", key: component.contract.key)
    }
}
