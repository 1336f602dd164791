import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The `--flow` document, run screen by screen:
/// - `GET /api/flow`: the current screen's renders, the transcript, the variables;
/// - `POST /api/flow/events` `{"instance", "interact", "data"}` or
///   `{"instance", "event", "payload"}` (a line of `graft run`'s events file);
/// - `POST /api/flow/restart`.
/// Each answers the new state. Without `--flow`: `no_flow`.
enum FlowRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/flow") { _, _ in
            HTTPReply.json(try await flow(parts).state())
        }
        router.post("/api/flow/events") { request, _ in
            let flow = try flow(parts)
            let body = try await RequestJSON.object(request)
            return HTTPReply.json(try await flow.send(GraftValue.object(body.fields).jsonText))
        }
        router.post("/api/flow/restart") { _, _ in
            HTTPReply.json(try await flow(parts).restart())
        }
    }

    private static func flow(_ parts: WorkbenchParts) throws(WorkbenchError) -> FlowSession {
        guard let flow = parts.flow else { throw .noFlow }
        return flow
    }
}
