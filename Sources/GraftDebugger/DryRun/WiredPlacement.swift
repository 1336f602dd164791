import GraftHost

/// One instance placed in a flow, with the actions wired to its events as
/// the document writes them (templates unresolved).
struct WiredPlacement: Sendable, Hashable {
    var id: String
    var screen: String
    var component: ComponentReference
    /// The bindings as written: constants, or strings with `{{variables.NAME}}`.
    var inputs: [String: GraftValue]
    /// Event → the action objects wired to it, in order.
    var on: [String: [GraftValue]]
}
