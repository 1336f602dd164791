/// A live component instance, created by a definition's factory.
///
/// The host never makes two calls into one instance at once, but successive
/// calls may come from different threads.
///
/// Only ``render(_:)`` is required. GraftKit always gives the host the C
/// functions for the optional methods; the defaults answer "not supported":
/// - ``update(props:)`` returns `false`, so the host recreates the instance;
/// - ``interact(_:data:)`` returns `false` (unknown action);
/// - ``saveState()`` returns `nil`, so `save_state` returns `false`;
/// - ``loadState(_:)`` returns `false`, so the instance starts fresh.
public protocol CustomComponent: AnyObject {
    func render(_ request: RenderRequest) -> Rendering
    /// Takes a complete new set of inputs. Return `false` to be recreated instead.
    func update(props: ComponentProps) -> Bool
    /// Reacts to a simulated user interaction. Return `false` for an unknown action.
    func interact(_ action: String, data: Value?) -> Bool
    /// State for hot swap, in any format ``loadState(_:)`` reads back.
    func saveState() -> String?
    /// Restores state saved by this or an older build. Return `false` when not understood.
    func loadState(_ state: String) -> Bool
}

extension CustomComponent {
    public func update(props: ComponentProps) -> Bool { false }
    public func interact(_ action: String, data: Value?) -> Bool { false }
    public func saveState() -> String? { nil }
    public func loadState(_ state: String) -> Bool { false }
}
