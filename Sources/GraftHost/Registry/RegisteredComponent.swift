import CGraft

/// A component the registry can resolve: its contract and the plugin that
/// provides it. A class, so a lookup hands out one reference instead of
/// copying the contract's every field.
public final class RegisteredComponent: Sendable {
    public let contract: ComponentContract
    public let pluginID: String
    public let pluginPath: String
    package let plugin: LoadedPlugin

    package init(contract: ComponentContract, plugin: LoadedPlugin) {
        self.contract = contract
        self.pluginID = plugin.info.id
        self.pluginPath = plugin.info.path
        self.plugin = plugin
    }

    /// Its bare name, which it answers when its plugin owns it.
    public var reference: ComponentReference { contract.reference }

    /// Its name qualified by its plugin id, which always reaches it.
    public var qualifiedReference: ComponentReference { contract.reference.qualified(by: pluginID) }
}
