/// A named example configuration of a component, beside its `debugConfig`:
/// a state a debugger or a workbench offers to show it in, and that
/// `graft try --story NAME` renders (graft.h's `graft_story_t`, ABI 1.3).
public struct ComponentStory: Sendable, Hashable {
    /// Unique within the component: lowercase letters, digits, `_`, `.` and `-`.
    public var name: String
    public var description: String?
    /// Inputs, as `debugConfig`: keys must be declared inputs, values of their types.
    public var config: [String: Value]

    public init(_ name: String, description: String? = nil, config: [String: Value]) {
        self.name = name
        self.description = description
        self.config = config
    }
}
