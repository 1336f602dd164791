import GraftHost

/// A node of the flow graph: the instances shown together.
public struct FlowScreen: Sendable, Hashable {
    public internal(set) var id: String
    /// The container size for this screen's instances, when the document gives one.
    public internal(set) var size: ContainerSize?
    public internal(set) var instances: [FlowInstance]
}
