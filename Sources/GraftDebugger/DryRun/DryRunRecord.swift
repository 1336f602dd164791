import GraftHost

/// One thing the sandbox recorded, newest last: an event (the component's
/// own, or one the request simulated), or an action the flow wires to an
/// event, recorded and not run. Warnings sit beside the record they concern.
public struct DryRunRecord: Sendable, Hashable {
    public enum Origin: String, Sendable, Hashable {
        /// The plugin's instance emitted it.
        case component
        /// The request fed it as if the instance had emitted it.
        case simulated
    }

    public enum Entry: Sendable, Hashable {
        /// `during` says when: `create`, `render`, `interact ACTION` or `emit`.
        case emitted(event: String, payload: GraftValue?, origin: Origin, during: String)
        /// An action wired to `event`, with its params resolved against the
        /// event's payload and the flow's initial variables. Not executed.
        case wouldRun(action: String, params: GraftValue, event: String)
    }

    public var instance: String
    public var entry: Entry
    public var warnings: [GraftWarning]

    public init(instance: String, entry: Entry, warnings: [GraftWarning] = []) {
        self.instance = instance
        self.entry = entry
        self.warnings = warnings
    }
}
