import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// What the log's ring holds. An event straight from a host instance is
/// kept as the host's own `EmittedEvent` and becomes an `ActionLogRecord`
/// only when read: recording it is then a few retains, not a conversion
/// (the difference between the log being cheap enough to leave on or not).
enum StoredRecord: Sendable {
    case emitted(EmittedEvent, sequence: UInt64, time: Date)
    /// Boxed: the other records are rarer, and a small enum is cheaper to move.
    indirect case record(ActionLogRecord)

    var sequence: UInt64 {
        switch self {
        case .emitted(_, let sequence, _): sequence
        case .record(let record): record.sequence
        }
    }

    var record: ActionLogRecord {
        switch self {
        case .emitted(let event, let sequence, let time):
            var record = ActionLogRecord(event)
            record.time = time
            record.sequence = sequence
            return record
        case .record(let record):
            return record
        }
    }

    func matches(_ filter: ActionLogFilter) -> Bool {
        guard !filter.isEmpty else { return true }
        switch self {
        case .emitted(let event, _, _):
            return filter.matches(
                pluginID: event.pluginID, component: event.component, instance: event.instanceID, event: event.event)
        case .record(let record):
            return filter.matches(record)
        }
    }
}
