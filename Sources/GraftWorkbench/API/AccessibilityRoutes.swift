import GraftHost
import GraftWebDriver
import Hummingbird
import HummingbirdWebSocket

/// The Accessibility section's engine: `GET /api/axe` answers axe-core's script (from `GRAFT_AXE`, or PyPI's
/// axe-playwright-python), which the page runs over a component's render in a frame of its own; `axe_unavailable`
/// (404, saying why) when it does not read. Looked up off the server's threads (it may ask python3), and kept once
/// found: a failure is asked again next time, so installing axe needs no restart.
enum AccessibilityRoutes {
    private static let found = Locked<String?>(nil)

    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.get("/api/axe") { _, _ in
            let script: String
            if let kept = found.withLock({ $0 }) {
                script = kept
            } else {
                do {
                    script = try await parts.calls.run { () throws -> String in try Axe.source() }
                } catch let error as GraftError {
                    throw WorkbenchError.axeUnavailable(error.message)
                }
                found.withLock { $0 = script }
            }
            return HTTPReply.asset(Asset(contentType: "text/javascript; charset=utf-8", bytes: Array(script.utf8)))
        }
    }
}
