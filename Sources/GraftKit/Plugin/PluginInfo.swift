/// Who a plugin is: the fields of `graft_plugin_entry_t`.
public struct PluginInfo: Sendable, Hashable {
    /// Reverse DNS, for example "dev.graft.date-picker".
    public var id: String
    /// The plugin's own version, for example "1.0.0".
    public var version: String
    public var name: String
    public var vendor: String?
    public var description: String?
    /// What the plugin needs beyond its sandbox, each with its reason.
    public var permissions: [PluginPermission]

    public init(id: String, version: String, name: String, vendor: String? = nil,
                description: String? = nil, permissions: [PluginPermission] = []) {
        self.id = id
        self.version = version
        self.name = name
        self.vendor = vendor
        self.description = description
        self.permissions = permissions
    }
}
