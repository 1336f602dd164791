import GraftHost

/// Something the sandbox does to its instance, in order, before rendering.
public enum DryRunStep: Sendable, Hashable {
    /// A user interaction (a tap, a selection): the component decides what to emit.
    case interact(action: String, data: GraftValue? = nil)
    /// The event as if the component had emitted it, checked against its
    /// contract (an undeclared event or a payload off its schema is recorded
    /// with a warning, as at run time).
    case emit(event: String, payload: GraftValue? = nil)
}
