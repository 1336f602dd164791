/// How many log lines a plugin may have the host write a second: at most
/// `perSecond` on average, in bursts of as many. The rest are counted and
/// dropped, and the count is said once lines pass again, so a plugin that
/// logs in a loop can neither flood the host's log nor slow the host down
/// writing it.
package struct LineRate {
    package static let perSecond = 200

    private var tokens = Double(Self.perSecond)
    private var last = ContinuousClock.now
    /// Lines dropped since the last note about them.
    package private(set) var dropped = 0

    package init() {}

    /// What to do with one more line now.
    package enum Verdict {
        case write
        case drop
        /// Drop it, and say at once that lines are being dropped (the first of a run).
        case dropAndSay(String)
    }

    /// Whether one more line may be written now; counts it as dropped if not.
    package mutating func admit(now: ContinuousClock.Instant = .now) -> Verdict {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(Self.perSecond), tokens + seconds * Double(Self.perSecond))
        guard tokens >= 1 else {
            dropped += 1
            return dropped == 1 ? .dropAndSay("(log lines dropped: more than \(Self.perSecond) a second; how many, when they pass again)") : .drop
        }
        tokens -= 1
        return .write
    }

    /// The note for the lines dropped so far, if any, and the count reset.
    package mutating func takeNote() -> String? {
        guard dropped > 0 else { return nil }
        defer { dropped = 0 }
        return "(\(dropped) log line\(dropped == 1 ? "" : "s") dropped: more than \(Self.perSecond) a second)"
    }
}
