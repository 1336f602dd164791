import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// One thing that happened while a flow ran, with when it happened. The
/// runner appends entries in order and hands each to its observer as it
/// is recorded; `json(includingTime:)` is the stable form the CLI prints.
public struct TranscriptEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// An instance (or a placeholder for a missing component) was rendered.
        case render(RenderRecord)
        /// The runner simulated a user interaction on an instance.
        case interaction(InteractionRecord)
        /// An instance emitted an event, or an events file fed one.
        case event(EventRecord)
        /// An action ran (built-in or custom), with its outcome.
        case action(ActionRecord)
        /// A `validate` action ran its validator.
        case validation(ValidationRecord)
        /// Contract drift or a runtime problem, forwarded rather than fatal.
        case warning(GraftWarning)
        /// A flow variable took a new value.
        case variableChange(VariableChange)
        /// The flow moved to another screen.
        case navigation(NavigationRecord)
        /// The flow ended on `screen`.
        case close(screen: String)
    }

    public var time: Date
    public var kind: Kind

    init(time: Date = Date(), kind: Kind) {
        self.time = time
        self.kind = kind
    }
}
