import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The page and its assets (built into the binary, see `Assets`), and
/// `GET /api/info`: what this workbench runs.
enum PageRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/") { _, _ in HTTPReply.asset(Assets.page) }
        router.get("/assets/{name}") { request, context in
            guard let asset = Assets.named(context.parameters.get("name") ?? "") else {
                throw WorkbenchError.notFound(request.uri.path)
            }
            return HTTPReply.asset(asset)
        }
        router.get("/api/info") { _, _ in
            HTTPReply.json(info(parts))
        }
    }

    static func info(_ parts: WorkbenchParts) -> GraftValue {
        var object: [String: GraftValue] = [
            "graft": .string(GraftHost.version),
            "isolation": .string(parts.host.configuration.isolation.rawValue),
            "watching": .list(parts.watching.map(GraftValue.string)),
        ]
        if let flow = parts.flow { object["flow"] = .string(flow.path) }
        if let attached = parts.attached { object["attach"] = .string(attached.socketPath) }
        return .object(object)
    }
}
