import GraftFlows
import GraftHost

/// Turns a flow runner's transcript into action-log records: give it to
/// the `FlowRunner` as its observer.
///
///     let feed = FlowLogFeed(log: log, host: host)
///     let runner = FlowRunner(host: host, flow: flow, observer: feed)
///     try runner.send(event)    // its records are in `log` when it returns
///
/// Events, actions, validations and unclaimed warnings become records; each
/// carries the plugin and `key@version` of the instance it concerns (learnt
/// from the instance's renders). The runner reports an event's drift, and an
/// action's failure, as warnings right after it; the feed holds the newest
/// event or action back until the next entry shows that no more warnings
/// belong to it, so the warnings sit in the record they concern; the end of
/// the runner's step publishes it.
///
/// Renders, interactions, variable changes and navigation are not logged:
/// the action records already carry the variables they set and `go_to`.
public final class FlowLogFeed: FlowObserver {
    private let log: ActionLog
    private let host: GraftHost
    private let state = Locked(State())

    private struct State: Sendable {
        var pending: ActionLogRecord?
        /// What each instance is, from its latest render.
        var instances: [String: Provenance] = [:]
        /// The event whose actions are running, for validation and warning records.
        var trigger: (instance: String, event: String)?
    }

    private struct Provenance: Sendable {
        var component: ComponentReference
        var pluginID: String?
    }

    public init(log: ActionLog, host: GraftHost) {
        self.log = log
        self.host = host
    }

    /// Publishes the record held back, if any: the step that could have
    /// added warnings to it is over.
    public func flowStepFinished() {
        if let record = state.withLock({ state in defer { state.pending = nil }; return state.pending }) {
            log.record(record)
        }
    }

    public func flowRecorded(_ entry: TranscriptEntry) {
        // Decide under the lock, record outside it: the log has its own lock
        // and wakes followers.
        let ready: [ActionLogRecord] = state.withLock { state in
            switch entry.kind {
            case .render(let render):
                if state.instances[render.instance]?.component != render.component || render.isPlaceholder {
                    state.instances[render.instance] = Provenance(
                        component: render.component,
                        pluginID: render.isPlaceholder ? nil : (try? host.resolve(render.component))?.pluginID)
                }
                return []
            case .warning(let warning):
                if var pending = state.pending, warning.instanceID == nil || warning.instanceID == pending.instance {
                    pending.warnings.append(warning)
                    state.pending = pending
                    return []
                }
                var record = Self.record(in: state, time: entry, instance: warning.instanceID, detail: .warning)
                record.warnings = [warning]
                return Self.publish(record, replacing: &state.pending, now: true)
            case .event(let event):
                state.trigger = (event.instance, event.event)
                var record = Self.record(
                    in: state, time: entry, instance: event.instance,
                    detail: .event(payload: event.payload, origin: event.origin, wiredActions: event.wiredActions))
                record.screen = event.screen
                record.event = event.event
                return Self.publish(record, replacing: &state.pending, now: false)
            case .action(let action):
                var record = Self.record(in: state, time: entry, instance: action.instance, detail: .action(LoggedAction(action)))
                record.event = action.event
                return Self.publish(record, replacing: &state.pending, now: false)
            case .validation(let validation):
                var record = Self.record(
                    in: state, time: entry, instance: state.trigger?.instance, detail: .validation(LoggedValidation(validation)))
                record.event = state.trigger?.event
                return Self.publish(record, replacing: &state.pending, now: true)
            case .close:
                state.trigger = nil
                return Self.publish(nil, replacing: &state.pending, now: true)
            case .interaction, .variableChange, .navigation:
                return Self.publish(nil, replacing: &state.pending, now: true)
            }
        }
        for record in ready { log.record(record) }
    }

    /// A record with the instance's plugin and component filled in.
    private static func record(
        in state: State, time entry: TranscriptEntry, instance: String?, detail: ActionLogRecord.Detail
    ) -> ActionLogRecord {
        let provenance = instance.flatMap { state.instances[$0] }
        return ActionLogRecord(
            time: entry.time, pluginID: provenance?.pluginID, component: provenance?.component, instance: instance,
            detail: detail)
    }

    /// What to record now: the record held back, then `record` unless it is
    /// to be held back in its turn (`now` false).
    private static func publish(
        _ record: ActionLogRecord?, replacing pending: inout ActionLogRecord?, now: Bool
    ) -> [ActionLogRecord] {
        var ready = pending.map { [$0] } ?? []
        pending = nil
        if let record {
            if now { ready.append(record) } else { pending = record }
        }
        return ready
    }
}
