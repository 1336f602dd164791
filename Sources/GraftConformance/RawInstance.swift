import CGraft
import GraftHost
import Logging

/// One component instance made straight through the plugin's C factory, with
/// a real host context (emits are checked against the contract as in any
/// host): the conformance checks need what `ComponentInstance` hides — the
/// inputs exactly as given, the bytes a render wrote, the media type it
/// declared, `interact`'s own answer.
final class RawInstance {
    let component: RegisteredComponent
    private let context: InstanceContext
    private let cContext: UnsafeMutablePointer<graft_component_context_t>
    private let pointer: UnsafePointer<graft_component_instance_t>
    private let events: Locked<[EmittedEvent]>
    private var destroyed = false

    private init(
        component: RegisteredComponent, context: InstanceContext, cContext: UnsafeMutablePointer<graft_component_context_t>,
        pointer: UnsafePointer<graft_component_instance_t>, events: Locked<[EmittedEvent]>
    ) {
        self.component = component
        self.context = context
        self.cContext = cContext
        self.pointer = pointer
        self.events = events
    }

    /// What `create` answered.
    enum Created {
        case instance(RawInstance)
        /// create returned NULL.
        case refused
        /// create returned an instance without render or destroy (destroyed
        /// again when it had a destroy).
        case incomplete
    }

    /// Asks the factory for `key`@`version` (the component's own unless
    /// given) with `inputs`.
    static func create(
        _ component: RegisteredComponent, inputs: (CArena) -> UnsafePointer<graft_value_t>, key: String? = nil,
        version: Int? = nil, size: ContainerSize = ContainerSize(width: 40, height: 10), logger: Logger
    ) -> Created {
        guard let factory = (try? component.plugin.mapped())?.componentFactory, let create = factory.pointee.create else {
            return .refused
        }
        let events = Locked<[EmittedEvent]>([])
        let context = InstanceContext(
            instanceID: "conformance", component: component, containerSize: size, logger: logger,
            onEvent: { event in events.withLock { $0.append(event) } })
        let cContext = context.makeCContext()
        let arena = CArena()
        let made = create(
            factory, arena.cString(key ?? component.contract.key).pointer, UInt32(version ?? component.contract.version),
            inputs(arena), UnsafePointer(cContext))
        guard let made else {
            cContext.deallocate()
            return .refused
        }
        guard made.pointee.render != nil, made.pointee.destroy != nil else {
            made.pointee.destroy?(made)
            cContext.deallocate()
            return .incomplete
        }
        return .instance(RawInstance(component: component, context: context, cContext: cContext, pointer: made, events: events))
    }

    /// From plain inputs, as a flow would give them.
    static func create(
        _ component: RegisteredComponent, inputs: [String: GraftValue], key: String? = nil, version: Int? = nil,
        size: ContainerSize = ContainerSize(width: 40, height: 10), logger: Logger
    ) -> Created {
        create(component, inputs: { $0.cValuePointer(.object(inputs)) }, key: key, version: version, size: size, logger: logger)
    }

    struct Output {
        var ok: Bool
        var bytes: [UInt8]
        /// What the plugin declared with set_media_type, if it did.
        var declared: String?
        var overflowed: Bool
    }

    func render(_ mediaType: String) -> Output {
        let output = OutputWriter()
        let ok = output.withWriter { writer in pointer.pointee.render!(pointer, mediaType, writer) }
        return Output(ok: ok, bytes: output.bytes, declared: output.mediaType, overflowed: output.overflowed)
    }

    /// `interact`'s answer; nil when the instance has no interact function.
    func interact(_ action: String, data: GraftValue?) -> Bool? {
        guard let interact = pointer.pointee.interact else { return nil }
        let arena = CArena()
        return interact(pointer, arena.cString(action).pointer, data.map { arena.cValuePointer($0) })
    }

    /// The events emitted since the last call, with their drift warnings.
    func takeEvents() -> [EmittedEvent] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    func takeWarnings() -> [GraftWarning] { context.takeWarnings() }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        pointer.pointee.destroy!(pointer)
        cContext.deallocate()
    }

    deinit { destroy() }
}
