/// How a custom action ended: the variables it sets and the value it
/// reports on success, or why it failed.
public struct ActionResult: Sendable, Hashable {
    /// `nil` on success; the explanation on failure.
    public var error: String?
    /// Flow variables to set; the host applies them only on success.
    public var variables: [String: Value]
    /// A result for the log and the debugger, such as `{"open_url": "…"}`.
    public var result: Value?

    public var isSuccess: Bool { error == nil }

    public init(error: String? = nil, variables: [String: Value] = [:], result: Value? = nil) {
        self.error = error
        self.variables = variables
        self.result = result
    }

    public static func success(variables: [String: Value] = [:], result: Value? = nil) -> Self {
        ActionResult(variables: variables, result: result)
    }

    public static func failure(_ message: String) -> Self {
        ActionResult(error: message)
    }
}
