import GraftHost

/// What a sandbox run produced: the component and plugin, the inputs it was
/// given, its rendering, every warning, and the records, newest last.
public struct DryRunResult: Sendable, Hashable {
    public var component: ComponentReference
    public var pluginID: String
    public var pluginPath: String
    /// The instance id used: the flow's placement id, or `sandbox`.
    public var instance: String
    public var inputs: [String: GraftValue]
    public var rendering: Rendering
    /// The instance's warnings (inputs, its own emits, the plugin's own),
    /// then the sandbox's (simulated events, bindings, wired actions).
    public var warnings: [GraftWarning]
    public var records: [DryRunRecord]

    public init(
        component: ComponentReference, pluginID: String, pluginPath: String, instance: String,
        inputs: [String: GraftValue], rendering: Rendering, warnings: [GraftWarning], records: [DryRunRecord]
    ) {
        self.component = component
        self.pluginID = pluginID
        self.pluginPath = pluginPath
        self.instance = instance
        self.inputs = inputs
        self.rendering = rendering
        self.warnings = warnings
        self.records = records
    }
}
