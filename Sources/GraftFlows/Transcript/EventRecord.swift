import GraftHost

/// An event that reached the flow.
public struct EventRecord: Sendable, Hashable {
    public enum Origin: String, Sendable, Hashable {
        /// The plugin's instance emitted it (during render or an interaction).
        case component
        /// The caller fed it as if the instance had emitted it.
        case injected
    }

    public var screen: String
    public var instance: String
    public var event: String
    public var payload: GraftValue?
    public var origin: Origin
    /// How many actions the flow wires to this event.
    public var wiredActions: Int
}
