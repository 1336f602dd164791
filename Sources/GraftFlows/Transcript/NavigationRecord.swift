/// A move from one screen to another.
public struct NavigationRecord: Sendable, Hashable {
    public var from: String
    public var to: String
}
