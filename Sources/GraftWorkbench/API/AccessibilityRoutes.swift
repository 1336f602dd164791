import GraftHost
import GraftWebDriver
import Hummingbird
import HummingbirdWebSocket

/// The Accessibility section's engine: `GET /api/axe` answers axe-core's script (from `GRAFT_AXE`, or PyPI's
/// axe-playwright-python), which the page runs over a component's render in a frame of its own; `axe_unavailable`
/// (404) when it is not installed. Read once, when first asked.
enum AccessibilityRoutes {
    private static let source = Locked<String??>(nil)

    static func add(to router: Router<BasicWebSocketRequestContext>) {
        router.get("/api/axe") { _, _ in
            let found = source.withLock { cached in
                if cached == nil { cached = .some(Axe.source()) }
                return cached!
            }
            guard let script = found else { throw WorkbenchError.axeUnavailable }
            return HTTPReply.asset(Asset(contentType: "text/javascript; charset=utf-8", bytes: Array(script.utf8)))
        }
    }
}
