import CGraft

/// The `graft_component_factory_t` functions.
enum ComponentFactoryFunctions {
    static func factory() -> graft_component_factory_t {
        graft_component_factory_t(
            count: { _ in UInt32(PluginImage.current?.registry.components.count ?? 0) },
            get_descriptor: { _, index in
                guard let registry = PluginImage.current?.registry,
                      Int(index) < registry.components.count else { return nil }
                return registry.componentDescriptors.map { $0 + Int(index) }
            },
            create: { _, key, version, inputs, context in
                guard let key, let context, let image = PluginImage.current else { return nil }
                return ComponentFactoryFunctions.create(
                    image: image, key: String(cString: key), version: Int(version),
                    inputs: inputs, context: context)
            })
    }

    /// Copies the inputs, runs the definition's factory and wraps the
    /// component in a heap-allocated C instance owned by the plugin until
    /// `destroy`. NULL for an unknown key+version or a factory that said no.
    static func create(image: PluginImage, key: String, version: Int,
                       inputs: UnsafePointer<graft_value_t>?,
                       context pointer: UnsafePointer<graft_component_context_t>)
        -> UnsafePointer<graft_component_instance_t>? {
        guard let registered = image.registry.component(key: key, version: version) else {
            image.host.log(.warning, "\(image.info.id) has no component \"\(key)\" version \(version).")
            return nil
        }
        let definition = registered.definition
        let context = ComponentContext(pointer)
        let props = ComponentProps(
            values: Value.copyingObject(inputs) ?? [:], declared: definition.inputs, context: context)
        guard let component = definition.factory(props, context) else {
            context.invalidate()
            image.host.log(.warning, "The factory of \"\(key)\" version \(version) created no instance.")
            return nil
        }
        let box = InstanceBox(component: component, context: context, inputs: definition.inputs)
        return InstanceFunctions.instance(for: box)
    }
}
