import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The host given with `--attach SOCKET`:
/// - `GET /api/attach`: `{"socket", "connected", "error", "host", "records"}`
///   (its newest action-log records; new ones arrive on `/live`);
/// - `GET /api/attach/plugins`: its plugin report, asked now.
/// Without `--attach`: `not_attached`.
enum AttachRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/attach") { _, _ in
            HTTPReply.json(try attached(parts).json)
        }
        router.get("/api/attach/plugins") { _, _ in
            HTTPReply.json(.object(["report": try await attached(parts).plugins()]))
        }
    }

    private static func attached(_ parts: WorkbenchParts) throws(WorkbenchError) -> AttachedHost {
        guard let attached = parts.attached else { throw .notAttached }
        return attached
    }
}
