import CGraft

/// An instance whose plugin is mapped in this process: graft.h's calls on
/// the plugin's pointer, valid until `destroy`. Holding `component` keeps
/// the plugin's image mapped while the instance lives (a hot swap's old build
/// included).
final class LocalInstance: InstanceSide {
    private let instance: UnsafePointer<graft_component_instance_t>
    private let component: RegisteredComponent
    private let context: InstanceContext
    /// Reused by every render (calls are serialized); given back for another
    /// instance when this one is destroyed.
    private var output: OutputWriter?

    private init(_ instance: UnsafePointer<graft_component_instance_t>, component: RegisteredComponent, context: InstanceContext) {
        self.instance = instance
        self.component = component
        self.context = context
    }

    /// Binds the inputs to the contract (drift is forwarded with warnings)
    /// and calls the factory's `create`.
    static func make(
        component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext,
        cContext: UnsafeMutablePointer<graft_component_context_t>
    ) throws(GraftError) -> LocalInstance {
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
        return LocalInstance(instance, component: component, context: context)
    }

    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        let output = self.output ?? OutputWriter.take()
        output.reset(limit: outputLimit)
        self.output = output
        let ok = output.withWriter { writer in instance.pointee.render!(instance, mediaType.rawValue, writer) }
        try context.judgeRender(ok: ok, overflowed: output.overflowed, limit: output.limit, of: component)
        return (Rendering(mediaType: output.mediaType.map(MediaType.init(rawValue:)) ?? mediaType, text: output.text), output.overflowed)
    }

    func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool {
        var answered = false
        if let interact = instance.pointee.interact {
            answered = action.withCString { name in
                guard let data else { return interact(instance, name, nil) }
                return data.withCValue { interact(instance, name, $0) }
            }
        }
        context.explain(action, answered: answered, by: component)
        return answered
    }

    func update(inputs: [String: GraftValue]) throws(GraftError) -> Bool {
        let (forwarded, warnings) = DriftCheck.bind(inputs, to: component.contract, instanceID: context.instanceID)
        context.record(warnings)
        guard let update = instance.pointee.update_inputs else { return false }
        return GraftValue.object(forwarded).withCValue { update(instance, $0) }
    }

    func saveState() -> [UInt8]? {
        guard let save = instance.pointee.save_state else { return nil }
        let output = OutputWriter()
        let ok = output.withWriter { save(instance, $0) }
        return ok && !output.overflowed ? output.bytes : nil
    }

    func loadState(_ state: [UInt8]) -> Bool {
        guard let load = instance.pointee.load_state else { return false }
        return state.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { load(instance, $0.baseAddress, $0.count) }
        }
    }

    /// The plugin reads the size from its context when it needs it.
    func resize(to size: ContainerSize) {}

    func destroy(closing: Bool) {
        instance.pointee.destroy!(instance)
        if let output {
            self.output = nil
            OutputWriter.giveBack(output)
        }
    }
}
