import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The page and its assets (built into the binary, see `Assets`), and
/// `GET /api/info`: what this workbench runs.
enum PageRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/") { _, _ in
            // A nonce for this answer alone: the page's script hands it to the Accessibility section's frame.
            let nonce = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
            let page = String(decoding: Assets.page.bytes, as: UTF8.self)
                .replacing("<script src=\"/assets/app.js\" defer>", with: "<script src=\"/assets/app.js\" nonce=\"\(nonce)\" defer>")
            var response = HTTPReply.asset(Asset(contentType: Assets.page.contentType, bytes: Array(page.utf8)))
            response.headers[SecurityHeaders.scriptNonce] = nonce
            return response
        }
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
