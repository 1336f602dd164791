import GraftHost

/// A custom action as the editor knows it: the key and version the flow
/// invokes, and the params it passes. The checker compares it with the
/// action a plugin registers.
public struct FlowActionDefinition: Sendable, Hashable {
    public internal(set) var key: String
    public internal(set) var version: Int
    /// The params the editor declares, sorted by key; nil when the editor
    /// does not declare them (then they are not compared).
    public internal(set) var params: [FieldSpec]?
    /// The plugin id the definition names, if any: then only that plugin's
    /// action is invoked, whoever answers the bare name.
    public internal(set) var plugin: String?

    public var reference: ComponentReference { ComponentReference(key: key, version: version, plugin: plugin) }
}
