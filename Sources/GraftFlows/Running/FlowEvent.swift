import GraftHost

/// Something that happens to an instance on the current screen, as a
/// script or a debugger drives the flow.
public enum FlowEvent: Sendable, Hashable {
    /// Feeds `event` as if the instance had emitted it: it is checked against
    /// the component's declared outputs (drift is forwarded with a warning)
    /// and runs the actions the flow wires to it.
    case emit(instance: String, event: String, payload: GraftValue? = nil)
    /// Calls `interact(action, data:)` on the plugin's instance, as a user
    /// would tap or select; whatever the component emits is then processed.
    case interact(instance: String, action: String, data: GraftValue? = nil)

    /// The instance the event is for.
    public var instance: String {
        switch self {
        case .emit(let instance, _, _), .interact(let instance, _, _): instance
        }
    }
}
