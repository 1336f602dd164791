import CGraft

/// A component the registry can resolve: its contract and the plugin that
/// provides it.
public struct RegisteredComponent: Sendable {
    public var contract: ComponentContract
    public var pluginID: String
    public var pluginPath: String
    let plugin: LoadedPlugin

    init(contract: ComponentContract, plugin: LoadedPlugin) {
        self.contract = contract
        self.pluginID = plugin.info.id
        self.pluginPath = plugin.info.path
        self.plugin = plugin
    }

    public var reference: ComponentReference { contract.reference }
}
