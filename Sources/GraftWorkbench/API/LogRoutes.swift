import GraftDebugger
import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// `GET /api/log?last=N&plugin=&component=&instance=&event=`: the newest
/// records of the workbench's action log (200 unless `last` says), oldest
/// first, in the debugger's JSON form; new ones arrive on `/live`.
enum LogRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/log") { request, _ in
            let query = request.uri.queryParameters
            func text(_ key: String) -> String? { query[Substring(key)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
            var last = 200
            if let given = text("last") {
                guard let number = Int(given), number >= 0 else {
                    throw WorkbenchError.invalidJSON("/api/log: \"last\" must be a whole number ≥ 0, not '\(given)'.")
                }
                last = min(number, ActionLog.defaultCapacity)
            }
            let filter = ActionLogFilter(pluginID: text("plugin"), component: text("component"), instance: text("instance"), event: text("event"))
            let records = parts.log.records(matching: filter, last: last)
            return HTTPReply.json(.object(["records": .list(records.map(\.json))]))
        }
    }
}
