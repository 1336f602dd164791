import GraftHost

/// A user interaction the runner simulated on an instance (`interact` in an events file).
public struct InteractionRecord: Sendable, Hashable {
    public var screen: String
    public var instance: String
    public var action: String
    public var data: GraftValue?
    /// False when the component does not know the interaction.
    public var isKnown: Bool
}
