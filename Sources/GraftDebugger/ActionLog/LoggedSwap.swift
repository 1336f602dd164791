import GraftHost

/// A hot swap as the action log keeps it: plain values, so it travels as
/// JSON and reads back the same.
public struct LoggedSwap: Sendable, Hashable {
    public var path: String
    /// `swapped`, `loaded`, `unchanged`, `removed` or `failed`.
    public var outcome: String
    public var oldVersion: String?
    public var newVersion: String?
    public var milliseconds: Double
    /// Instances moved to the new build, and those of them that kept their state.
    public var recreated: [String]
    public var stateCarried: [String]
    /// Instances that could not move and stay on the old build.
    public var failed: [String]
    /// Instances whose component the new build lacks.
    public var orphaned: [String]
    /// The one-line summary `graft watch` prints.
    public var summary: String

    public init(
        path: String, outcome: String, oldVersion: String? = nil, newVersion: String? = nil, milliseconds: Double = 0,
        recreated: [String] = [], stateCarried: [String] = [], failed: [String] = [], orphaned: [String] = [],
        summary: String
    ) {
        self.path = path
        self.outcome = outcome
        self.oldVersion = oldVersion
        self.newVersion = newVersion
        self.milliseconds = milliseconds
        self.recreated = recreated
        self.stateCarried = stateCarried
        self.failed = failed
        self.orphaned = orphaned
        self.summary = summary
    }

    init(_ swap: SwapEvent) {
        let outcome =
            switch swap.outcome {
            case .swapped: "swapped"
            case .loaded: "loaded"
            case .unchanged: "unchanged"
            case .removed: "removed"
            case .failed: "failed"
            }
        let components = swap.duration.components
        self.init(
            path: swap.path, outcome: outcome, oldVersion: swap.oldVersion, newVersion: swap.newVersion,
            milliseconds: Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15,
            recreated: swap.recreated.map(\.instanceID), stateCarried: swap.recreated.filter(\.stateCarried).map(\.instanceID),
            failed: swap.failed.map(\.instanceID), orphaned: swap.orphaned, summary: swap.summary)
    }
}
