import GraftHost

/// What one instance looked like when it was rendered.
public struct RenderRecord: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
        /// The screen was entered.
        case enter
        /// A variable the instance is bound to changed.
        case update
        /// Asked for by the host app, for example after a plugin was hot-swapped.
        case refresh
    }

    public var screen: String
    public var instance: String
    public var component: ComponentReference
    public var reason: Reason
    public var rendering: Rendering
    /// True when the component could not be created and a placeholder stands in.
    public var isPlaceholder: Bool
}
