import CGraft

/// The size of the container a component renders into, in points.
/// Zero means unbounded (a terminal treats one point as one column).
public struct ContainerSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    init(_ size: graft_size_t) {
        self.init(width: size.width, height: size.height)
    }
}
