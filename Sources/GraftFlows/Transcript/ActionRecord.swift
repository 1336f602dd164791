import GraftHost

/// One action run in response to an event: its resolved params and outcome.
public struct ActionRecord: Sendable, Hashable {
    /// The instance whose event triggered it.
    public var instance: String
    public var event: String
    /// `set_variable`, `go_to`, `validate`, `track`, `close` or a custom action's key.
    public var name: String
    /// The params after `{{…}}` were resolved.
    public var params: GraftValue
    public var ok: Bool
    public var error: String?
    /// What the action reported (a custom action's result, a validation's answer).
    public var result: GraftValue?
    /// The variables the action set.
    public var variablesSet: [String: GraftValue]
    /// A plugin's action: how long it took, and the CPU time it used (see `ActionOutcome`).
    public var wallTime: Duration? = nil
    public var cpuTime: Duration? = nil
}
