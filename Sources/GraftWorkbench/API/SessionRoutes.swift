import FoundationEssentials
import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The component page's live instance:
/// - `POST /api/sessions` `{"component": "KEY[@V]", "html": true, "width", "height"}`
///   opens a session from the debugConfig and answers its first render (201);
/// - `POST /api/sessions/ID/inputs` `{"inputs": {…}}` replaces the inputs and renders;
/// - `POST /api/sessions/ID/media-type` `{"html": bool}` renders in the other type;
/// - `POST /api/sessions/ID/size` `{"width", "height"}` gives it another container size (0 is unbounded) and renders;
/// - `POST /api/sessions/ID/interact` `{"action", "data"}` calls the component's
///   interaction and renders (`answered` says whether it knew it);
/// - `POST /api/sessions/ID/emit` `{"event", "payload"}` simulates an event
///   (recorded in the log, checked against the contract);
/// - `DELETE /api/sessions/ID` closes it.
/// A render that failed (the plugin crashed, hung, refused) is still a 200:
/// its `error` is the page's error card, and the next call starts afresh.
enum SessionRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.post("/api/sessions") { request, _ in
            let body = try await RequestJSON.object(request)
            let reference: ComponentReference
            do {
                reference = try ComponentReference(parsing: try body.string("component"))
            } catch let error as GraftError {
                throw WorkbenchError(error)
            }
            let size = try containerSize(body)
            let mediaType: GraftMediaType = try body.bool("html", default: true) ? .html : .plain
            let session: ComponentSession
            do throws(GraftError) {
                session = try parts.sessions.open(reference, mediaType: mediaType, size: size)
            } catch {
                throw WorkbenchError(error)
            }
            return HTTPReply.json(try await session.open().json, status: .created)
        }
        router.post("/api/sessions/{id}/inputs") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            return HTTPReply.json(try await session.update(inputs: try body.optionalObject("inputs") ?? [:]).json)
        }
        router.post("/api/sessions/{id}/media-type") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            return HTTPReply.json(try await session.change(mediaType: try body.bool("html", default: true) ? .html : .plain).json)
        }
        router.post("/api/sessions/{id}/size") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            return HTTPReply.json(try await session.change(size: try containerSize(try await RequestJSON.object(request))).json)
        }
        router.post("/api/sessions/{id}/interact") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            return HTTPReply.json(try await session.interact(try body.string("action"), data: body["data"]).json)
        }
        router.post("/api/sessions/{id}/emit") { request, context in
            let session = try parts.sessions.session(context.parameters.get("id") ?? "")
            let body = try await RequestJSON.object(request)
            let warnings = try await session.emit(try body.string("event"), payload: body["payload"])
            return HTTPReply.json(.object(["warnings": .list(warnings.map(\.workbenchJSON))]))
        }
        router.delete("/api/sessions/{id}") { _, context in
            parts.sessions.close(context.parameters.get("id") ?? "")
            return Response(status: .noContent)
        }
    }

    /// `width` and `height` in points: 0 (the default) is unbounded; anything else must be a finite number from 1 to
    /// 100,000.
    private static func containerSize(_ body: JSONObject) throws(WorkbenchError) -> ContainerSize {
        let width = try body.number("width", default: 0), height = try body.number("height", default: 0)
        for (name, value) in [("width", width), ("height", height)] where value != 0 && !(value.isFinite && value >= 1 && value <= 100_000) {
            throw WorkbenchError(.badRequest, status: 400, "\(name) \(value) is not a container size: give 0 (unbounded) or 1 to 100000 points.")
        }
        return ContainerSize(width: width, height: height)
    }
}
