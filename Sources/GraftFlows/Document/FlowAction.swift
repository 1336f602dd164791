import GraftHost

/// One step wired to an event. Values may hold `{{variables.NAME}}` and
/// `{{payload.KEY}}`; they are resolved when the step runs.
indirect enum FlowAction: Sendable, Hashable {
    /// Sets a flow variable.
    case setVariable(name: String, value: GraftValue)
    /// Moves to another screen once the current list of actions has run.
    case goTo(screen: String)
    /// Runs a validator; when the value is invalid, runs `onInvalid` and stops
    /// the list it is in (so a following `go_to` does not happen).
    case validate(validator: String, value: GraftValue, params: [GraftValue], onInvalid: [FlowAction], onValid: [FlowAction])
    /// Records an analytics event with its properties.
    case track(event: String, properties: [String: GraftValue])
    /// Ends the flow.
    case close
    /// A custom action from a plugin's action factory, declared in the document's `actions`.
    case custom(reference: ComponentReference, params: [String: GraftValue])

    /// The names of the built-in actions, as the document spells them.
    static let builtInNames = ["set_variable", "go_to", "validate", "track", "close"]

    /// The name the document uses for this action.
    var name: String {
        switch self {
        case .setVariable: "set_variable"
        case .goTo: "go_to"
        case .validate: "validate"
        case .track: "track"
        case .close: "close"
        case .custom(let reference, _): reference.key
        }
    }
}
