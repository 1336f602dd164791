/// A validator's answer as the host returns it, naming the validator and
/// the plugin that answered (a bare name may be any plugin's: see
/// `GraftConfiguration.preferredPlugins`). GraftKit's `ValidationResult` is
/// what the validator itself decides.
public struct ValidationOutcome: Sendable, Hashable {
    public package(set) var isValid: Bool
    /// Why the value is invalid (nil when valid). Flow SDKs key it by the
    /// validator's name.
    public package(set) var message: String?
    public package(set) var validator: String
    /// The id of the plugin whose validator answered.
    public var pluginID: String { PluginNumbers.id(of: pluginNumber) }
    /// `pluginID`, as a number the hot path copies without retaining anything.
    var pluginNumber: UInt32
}
