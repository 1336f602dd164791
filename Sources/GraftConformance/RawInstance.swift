import CGraft
import GraftHost
import Logging

/// One component instance made straight through the plugin's C factory (or,
/// for a WebAssembly plugin, its guest's `graft_create`), with a real host
/// context (emits are checked against the contract as in any host): the
/// conformance checks need what `ComponentInstance` hides — the inputs
/// exactly as given, the bytes a render wrote, the media type it declared,
/// `interact`'s own answer.
final class RawInstance {
    let component: RegisteredComponent
    private let context: InstanceContext
    private let side: Side
    private let events: Locked<[EmittedEvent]>
    private let probe: ConformanceProbe
    private var destroyed = false

    private enum Side {
        case native(pointer: UnsafePointer<graft_component_instance_t>, cContext: UnsafeMutablePointer<graft_component_context_t>)
        case guest(GuestComponent)
    }

    private init(component: RegisteredComponent, context: InstanceContext, side: Side, events: Locked<[EmittedEvent]>, probe: ConformanceProbe) {
        self.component = component
        self.context = context
        self.side = side
        self.events = events
        self.probe = probe
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
        version: Int? = nil, size: ContainerSize = ContainerSize(width: 40, height: 10), probe: ConformanceProbe
    ) -> Created {
        let events = Locked<[EmittedEvent]>([])
        let context = InstanceContext(
            instanceID: "conformance", component: component, containerSize: size, logger: probe.logger,
            onEvent: { event in events.withLock { $0.append(event) } })
        if component.plugin.isWebAssembly {
            // The guest takes its inputs as JSON: the C value written as it is (strings byte for byte).
            let arena = CArena()
            let json = CValueJSON.bytes(of: inputs(arena))
            do throws(GraftError) {
                guard
                    let made = try component.plugin.makeGuestComponent(
                        key: key ?? component.contract.key, version: version ?? component.contract.version, inputs: json, context: context)
                else { return .refused }
                return .instance(RawInstance(component: component, context: context, side: .guest(made), events: events, probe: probe))
            } catch {
                probe.guestFailed(error)
                return .refused
            }
        }
        guard let factory = (try? component.plugin.mapped())?.componentFactory, let create = factory.pointee.create else {
            return .refused
        }
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
        return .instance(RawInstance(component: component, context: context, side: .native(pointer: made, cContext: cContext), events: events, probe: probe))
    }

    /// From plain inputs, as a flow would give them.
    static func create(
        _ component: RegisteredComponent, inputs: [String: GraftValue], key: String? = nil, version: Int? = nil,
        size: ContainerSize = ContainerSize(width: 40, height: 10), probe: ConformanceProbe
    ) -> Created {
        create(component, inputs: { $0.cValuePointer(.object(inputs)) }, key: key, version: version, size: size, probe: probe)
    }

    struct Output {
        var ok: Bool
        var bytes: [UInt8]
        /// What the plugin declared with set_media_type, if it did.
        var declared: String?
        var overflowed: Bool
    }

    func render(_ mediaType: String) -> Output {
        switch side {
        case .native(let pointer, _):
            let output = OutputWriter()
            let ok = output.withWriter { writer in pointer.pointee.render!(pointer, mediaType, writer) }
            return Output(ok: ok, bytes: output.bytes, declared: output.mediaType, overflowed: output.overflowed)
        case .guest(let guest):
            do throws(GraftError) {
                let rendered = try guest.render(mediaType)
                return Output(ok: rendered.ok, bytes: rendered.bytes, declared: rendered.mediaType, overflowed: rendered.overflowed)
            } catch {
                probe.guestFailed(error)
                return Output(ok: false, bytes: [], declared: nil, overflowed: false)
            }
        }
    }

    /// `interact`'s answer; nil when the instance has no interact function.
    func interact(_ action: String, data: GraftValue?) -> Bool? {
        switch side {
        case .native(let pointer, _):
            guard let interact = pointer.pointee.interact else { return nil }
            let arena = CArena()
            return interact(pointer, arena.cString(action).pointer, data.map { arena.cValuePointer($0) })
        case .guest(let guest):
            do throws(GraftError) {
                return try guest.interact(action, data: data)
            } catch {
                probe.guestFailed(error)
                return false
            }
        }
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
        switch side {
        case .native(let pointer, let cContext):
            pointer.pointee.destroy!(pointer)
            cContext.deallocate()
        case .guest(let guest):
            guest.destroy()
        }
    }

    deinit { destroy() }
}
