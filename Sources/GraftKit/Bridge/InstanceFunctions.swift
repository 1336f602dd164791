import CGraft

/// The `graft_component_instance_t` functions. All are always present: a
/// component that keeps ``CustomComponent``'s defaults answers "not supported".
enum InstanceFunctions {
    static func instance(for box: InstanceBox) -> UnsafePointer<graft_component_instance_t> {
        let instance = UnsafeMutablePointer<graft_component_instance_t>.allocate(capacity: 1)
        instance.initialize(to: graft_component_instance_t(
            plugin_data: Unmanaged.passRetained(box).toOpaque(),
            render: { instance, mediaType, writer in
                guard let box = InstanceFunctions.unbox(instance), let writer else { return false }
                return InstanceFunctions.render(box, mediaType: mediaType.map { String(cString: $0) }, writer: writer)
            },
            update_inputs: { instance, inputs in
                guard let box = InstanceFunctions.unbox(instance) else { return false }
                let props = ComponentProps(values: Value.copyingObject(inputs) ?? [:],
                                           declared: box.inputs, context: box.context)
                return box.component.update(props: props)
            },
            interact: { instance, action, data in
                guard let box = InstanceFunctions.unbox(instance), let action else { return false }
                return box.component.interact(String(cString: action), data: Value.copying(data))
            },
            save_state: { instance, writer in
                guard let box = InstanceFunctions.unbox(instance), let writer,
                      let state = box.component.saveState() else { return false }
                return CWriter.write(state, to: writer)
            },
            load_state: { instance, data, length in
                guard let box = InstanceFunctions.unbox(instance) else { return false }
                let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length)
                guard let state = String(validating: bytes, as: UTF8.self) else { return false }
                return box.component.loadState(state)
            },
            destroy: { instance in
                guard let instance, let data = instance.pointee.plugin_data else { return }
                let box = Unmanaged<InstanceBox>.fromOpaque(data)
                box.takeUnretainedValue().context.invalidate()
                box.release()
                UnsafeMutablePointer(mutating: instance).deinitialize(count: 1).deallocate()
            }))
        return UnsafePointer(instance)
    }

    /// Renders and writes the text; declares the media type when it differs
    /// from the requested one (or when none was requested). False when the
    /// writer refused the text.
    private static func render(_ box: InstanceBox, mediaType: String?,
                               writer: UnsafePointer<graft_writer_t>) -> Bool {
        let requested = MediaType(rawValue: mediaType ?? MediaType.plain.rawValue)
        let request = RenderRequest(mediaType: requested, containerSize: box.context.containerSize)
        let rendering = box.component.render(request)
        if rendering.mediaType != requested || mediaType == nil {
            CWriter.setMediaType(rendering.mediaType, on: writer)
        }
        return CWriter.write(rendering.text, to: writer)
    }

    private static func unbox(_ instance: UnsafePointer<graft_component_instance_t>?) -> InstanceBox? {
        guard let data = instance?.pointee.plugin_data else { return nil }
        return Unmanaged<InstanceBox>.fromOpaque(data).takeUnretainedValue()
    }
}
