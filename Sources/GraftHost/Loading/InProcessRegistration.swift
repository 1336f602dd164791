import CGraft

/// A plugin whose factories live in the host's own process (GraftKit's
/// `InProcessPlugin`), registered through the same descriptor checks as a
/// file. Returned by `registerInProcess` so it can be taken back.
public final class InProcessRegistration: Sendable {
    public let plugin: PluginDescription
    let loaded: LoadedPlugin
    let key: String
    weak let host: GraftHost?

    init(loaded: LoadedPlugin, key: String, host: GraftHost) {
        self.plugin = loaded.info
        self.loaded = loaded
        self.key = key
        self.host = host
    }

    /// Unregisters the in-process components; what they overrode answers again.
    public func remove() {
        host?.table.forget(realPath: key)
    }
}

extension GraftHost {
    /// Registers factories that live in this process. Used by the
    /// GraftInProcess module; the pointers are graft.h factories that stay
    /// valid for the life of the process.
    package func registerInProcess(
        id: String, version: String, name: String,
        componentFactory: UnsafeRawPointer?, validatorFactory: UnsafeRawPointer?, actionFactory: UnsafeRawPointer?,
        overriding: Bool
    ) throws(GraftError) -> InProcessRegistration {
        let path = "in-process:\(id)"
        var reader = DescriptorReader(path: path)
        let components = reader.read(componentFactory, as: graft_component_factory_t.self).map(\.0)
        let validators = reader.read(validatorFactory, as: graft_validator_factory_t.self)
        let actions = reader.read(actionFactory, as: graft_action_factory_t.self)
        if let first = reader.problems.first { throw first }
        let info = PluginDescription(
            id: id, version: version, name: name, vendor: nil, description: "registered in-process",
            path: path, imagePath: path, abi: .host, canUnload: false, components: components,
            validators: validators.map(\.0), actions: actions.map(\.0))
        let loaded = LoadedPlugin(
            info: info,
            image: LoadedPlugin.Image(
                handle: nil, entry: nil, host: nil,
                componentFactory: componentFactory?.assumingMemoryBound(to: graft_component_factory_t.self),
                validators: validators, actions: actions))
        try register(loaded, realPath: path, overriding: overriding)
        // Registered to stand in for nothing, it must not hide behind another
        // plugin's name: a clash is refused, as it was asked by its bare name.
        if !overriding, let clash = table.clashes(of: loaded).first {
            table.forget(realPath: path)
            throw clash
        }
        return InProcessRegistration(loaded: loaded, key: path, host: self)
    }
}
