/// What a validator decides.
public enum ValidationResult: Sendable, Hashable {
    case valid
    /// Invalid, with a message for the user; `nil` uses the registered message.
    case invalid(String?)
}
