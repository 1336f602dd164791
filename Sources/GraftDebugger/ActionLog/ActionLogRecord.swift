import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftFlows
import GraftHost

/// One entry of the action log: an event a component emitted (or a script
/// fed), an action that ran with its outcome, a validator's answer, a
/// warning nothing else claimed, or a hot swap. Every entry carries what it
/// concerns: the plugin, the component `key@version`, the instance, the
/// screen and the event, where they apply.
public struct ActionLogRecord: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case event, action, validation, warning, swap
    }

    /// What happened, with the fields only that kind has.
    public enum Detail: Sendable, Hashable {
        /// `wiredActions` is how many actions the flow wires to the event;
        /// nil when the event did not come through a flow.
        case event(payload: GraftValue?, origin: EventRecord.Origin, wiredActions: Int?)
        // The larger kinds are boxed, so a record stays small to copy.
        indirect case action(LoggedAction)
        indirect case validation(LoggedValidation)
        /// A warning not tied to an event or action record; it is in `warnings`.
        case warning
        indirect case swap(LoggedSwap)
    }

    /// Position in the log, from 1, assigned when the log records it.
    public internal(set) var sequence: UInt64 = 0
    public var time: Date
    public var pluginID: String?
    public var component: ComponentReference?
    public var instance: String?
    public var screen: String?
    public var event: String?
    /// Drift and runtime warnings that came with this record.
    public var warnings: [GraftWarning]
    public var detail: Detail

    public init(
        time: Date = Date(), pluginID: String? = nil, component: ComponentReference? = nil, instance: String? = nil,
        screen: String? = nil, event: String? = nil, warnings: [GraftWarning] = [], detail: Detail
    ) {
        self.time = time
        self.pluginID = pluginID
        self.component = component
        self.instance = instance
        self.screen = screen
        self.event = event
        self.warnings = warnings
        self.detail = detail
    }

    public var kind: Kind {
        switch detail {
        case .event: .event
        case .action: .action
        case .validation: .validation
        case .warning: .warning
        case .swap: .swap
        }
    }

    /// The record of an event an instance emitted, straight from the host.
    public init(_ emitted: EmittedEvent) {
        self.init(
            pluginID: emitted.pluginID, component: emitted.component, instance: emitted.instanceID, event: emitted.event,
            warnings: emitted.warnings, detail: .event(payload: emitted.payload, origin: .component, wiredActions: nil))
    }

    /// The record of a hot swap (or a reload that found nothing to do).
    public init(_ swap: SwapEvent) {
        var warnings: [GraftWarning] = []
        if case .failed(let error) = swap.outcome { warnings.append(GraftWarning(error.code, error.message)) }
        for failure in swap.failed {
            warnings.append(GraftWarning(failure.error.code, failure.error.message, instanceID: failure.instanceID))
        }
        self.init(time: swap.time, pluginID: swap.pluginID, warnings: warnings, detail: .swap(LoggedSwap(swap)))
    }
}
