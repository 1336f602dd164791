import GraftHost

/// A validator's answer during a `validate` action.
public struct ValidationRecord: Sendable, Hashable {
    public var validator: String
    public var value: GraftValue
    public var params: [String]
    public var isValid: Bool
    public var message: String?
}
