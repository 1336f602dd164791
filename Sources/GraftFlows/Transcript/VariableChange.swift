import GraftHost

/// A flow variable that took a new value.
public struct VariableChange: Sendable, Hashable {
    public var name: String
    /// Nil when the variable did not exist before.
    public var oldValue: GraftValue?
    public var newValue: GraftValue
}
