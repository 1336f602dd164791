/// The answer of a validator.
public struct ValidationResult: Sendable, Hashable {
    public var isValid: Bool
    /// Why the value is invalid (nil when valid). Flow SDKs key it by the
    /// validator's name.
    public var message: String?
    public var validator: String

    public init(isValid: Bool, message: String? = nil, validator: String) {
        self.isValid = isValid
        self.message = message
        self.validator = validator
    }
}
