import CGraft

/// The `graft_component_factory_t` functions.
enum ComponentFactoryFunctions {
    static func factory() -> graft_component_factory_t {
        graft_component_factory_t(
            count: { factory in UInt32(DescriptorOwners.owner(ofFactory: factory)?.components.count ?? 0) },
            get_descriptor: { factory, index in
                guard let registry = DescriptorOwners.owner(ofFactory: factory),
                      Int(index) < registry.components.count else { return nil }
                return registry.componentDescriptors.map { $0 + Int(index) }
            },
            create: { factory, key, version, inputs, context in
                guard let key, let context, let registry = DescriptorOwners.owner(ofFactory: factory) else { return nil }
                return ComponentFactoryFunctions.create(
                    registry: registry, key: String(cString: key), version: Int(version),
                    inputs: inputs, context: context)
            })
    }

    /// Copies the inputs, runs the definition's factory and wraps the
    /// component in a heap-allocated C instance owned by the plugin until
    /// `destroy`. NULL for an unknown key+version or a factory that said no.
    static func create(registry: Registry, key: String, version: Int,
                       inputs: UnsafePointer<graft_value_t>?,
                       context pointer: UnsafePointer<graft_component_context_t>)
        -> UnsafePointer<graft_component_instance_t>? {
        guard let registered = registry.component(key: key, version: version) else {
            registry.host.log(.warning, "\(registry.info.id) has no component \"\(key)\" version \(version).")
            return nil
        }
        let definition = registered.definition
        let context = ComponentContext(pointer)
        let props = ComponentProps(
            values: Value.copyingObject(inputs) ?? [:], declared: definition.inputs, context: context)
        guard let component = definition.factory(props, context) else {
            context.invalidate()
            registry.host.log(.warning, "The factory of \"\(key)\" version \(version) created no instance.")
            return nil
        }
        let box = InstanceBox(component: component, context: context, inputs: definition.inputs)
        return InstanceFunctions.instance(for: box)
    }
}
