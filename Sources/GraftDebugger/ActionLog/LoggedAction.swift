import GraftFlows
import GraftHost

/// An action the runtime ran, as the action log keeps it: its name, the
/// params after templates were resolved, and what came of it.
public struct LoggedAction: Sendable, Hashable {
    /// `set_variable`, `go_to`, `validate`, `track`, `close` or a custom action's key.
    public var name: String
    public var params: GraftValue
    public var ok: Bool
    public var error: String?
    /// What the action reported (a custom action's result, a validation's answer).
    public var result: GraftValue?
    public var variablesSet: [String: GraftValue]
    /// A plugin's action: how long it took, and the CPU time it used.
    public var wallTime: Duration?
    public var cpuTime: Duration?

    public init(
        name: String, params: GraftValue, ok: Bool, error: String? = nil, result: GraftValue? = nil,
        variablesSet: [String: GraftValue] = [:], wallTime: Duration? = nil, cpuTime: Duration? = nil
    ) {
        self.name = name
        self.params = params
        self.ok = ok
        self.error = error
        self.result = result
        self.variablesSet = variablesSet
        self.wallTime = wallTime
        self.cpuTime = cpuTime
    }

    init(_ record: ActionRecord) {
        self.init(
            name: record.name, params: record.params, ok: record.ok, error: record.error, result: record.result,
            variablesSet: record.variablesSet, wallTime: record.wallTime, cpuTime: record.cpuTime)
    }
}
