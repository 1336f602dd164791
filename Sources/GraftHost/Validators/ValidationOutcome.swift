/// A validator's answer as the host returns it, naming the validator.
/// (GraftKit's `ValidationResult` is what the validator itself decides.)
public struct ValidationOutcome: Sendable, Hashable {
    public package(set) var isValid: Bool
    /// Why the value is invalid (nil when valid). Flow SDKs key it by the
    /// validator's name.
    public package(set) var message: String?
    public package(set) var validator: String
}
