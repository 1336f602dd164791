import GraftHost

/// A component placed on a screen: which component, its input bindings, and
/// the actions wired to its events.
public struct FlowInstance: Sendable, Hashable {
    /// Unique in the whole flow; events address instances by it.
    public internal(set) var id: String
    public internal(set) var component: ComponentReference
    /// The bindings as written: constants, or strings with `{{variables.NAME}}`.
    public internal(set) var inputs: [String: GraftValue]
    /// The actions wired to each event as the document writes them (checked
    /// when it was read), for tools that show them, such as the debugger's sandbox.
    public internal(set) var on: [String: [GraftValue]]
    /// The actions wired to each event, in order, as the runner executes them.
    var wiring: [String: [FlowAction]]

    /// The events this instance has actions wired to, sorted.
    public var wiredEvents: [String] { wiring.keys.sorted() }
}
