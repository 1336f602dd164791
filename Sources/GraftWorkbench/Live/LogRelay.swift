import Dispatch
import GraftDebugger
import GraftHost

/// Follows the workbench's action log and pushes new records to every page
/// as `{"type": "log", "records": [...], "skipped": N}`, where the page's
/// actions panel filters them.
final class LogRelay: Sendable {
    private let follower: ActionLogFollower

    init(log: ActionLog, hub: LiveHub) {
        let queue = DispatchQueue(label: "graft.workbench.log")
        follower = log.follow(on: queue) { records, skipped in
            hub.broadcast(.object([
                "type": "log", "records": .list(records.map(\.json)), "skipped": .number(Double(skipped)),
            ]))
        }
    }

    func stop() { follower.cancel() }
}
