import Foundation
import GraftHost
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Testing

/// Safe by default: every request needs the token, the workbench's own Host
/// and (when sent) Origin; every answer carries the content security policy;
/// nothing outside the app is served.
extension WorkbenchTests {
    @Suite("Workbench: security", .timeLimit(.minutes(10)))
    struct WorkbenchSecurityTests {
        /// A workbench with the widget plugin, for the duration of `body`.
        static func withWorkbench(_ body: (RunningWorkbench) async throws -> Void) async throws {
            let scratch = try Scratch()
            try Fixtures.build("good_widget", into: scratch.url.appendingPathComponent("plugins"))
            let running = try await RunningWorkbench.start(
                plugins: scratch.url.appendingPathComponent("plugins"), cache: scratch.file("cache"), watches: false)
            do {
                try await body(running)
            } catch {
                await running.stop()
                throw error
            }
            await running.stop()
        }

        @Test("no token: 401 token_required; a wrong one: 403 invalid_token; the right one, in any of its three places: 200")
        func tokenRequired() async throws {
            try await Self.withWorkbench { running in
                let missing = try await running.request("GET", "/api/plugins", headers: [])
                #expect(missing.status == 401)
                #expect(try GraftValue(json: missing.body)["error"]?["code"] == "token_required")
                let wrong = try await running.request("GET", "/api/plugins", headers: [("Authorization", "Bearer nope")])
                #expect(wrong.status == 403)
                #expect(try GraftValue(json: wrong.body)["error"]?["code"] == "invalid_token")
                let almost = try await running.request("GET", "/api/plugins?token=\(running.token.dropLast())", headers: [])
                #expect(almost.status == 403)

                #expect(try await running.request("GET", "/api/plugins").status == 200)
                #expect(try await running.request("GET", "/api/plugins?token=\(running.token)", headers: []).status == 200)
                // The printed URL sets the token as a cookie and shows the bare address.
                let landing = try await running.request("GET", "/?token=\(running.token)", headers: [])
                #expect(landing.status == 303)
                #expect(landing.header("location") == "/")
                let cookie = try #require(landing.header("set-cookie"))
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
                let pair = String(cookie.split(separator: ";")[0])
                #expect(try await running.request("GET", "/api/plugins", headers: [("Cookie", pair)]).status == 200)
                // The page itself, an asset and the live channel are no different.
                #expect(try await running.request("GET", "/", headers: []).status == 401)
                #expect(try await running.request("GET", "/assets/app.js", headers: []).status == 401)
                // A person at the address bar without the token, or with another run's, gets a page saying what to open.
                let page = try await running.request("GET", "/", headers: [("Accept", "text/html,application/xhtml+xml")])
                #expect(page.status == 401)
                #expect(page.header("content-type")?.hasPrefix("text/html") == true)
                #expect(page.body.contains("This workbench needs its token") && page.body.contains("token_required"))
                #expect(!page.body.contains("<script"), "the page runs nothing")
                let stale = try await running.request("GET", "/", headers: [("Accept", "text/html"), ("Cookie", "graft_workbench_\(running.port)=nope")])
                #expect(stale.status == 403)
                #expect(stale.body.contains("not the token of this workbench") && stale.body.contains("invalid_token"), "\(stale.body)")
                // The API stays JSON, whatever the client accepts.
                let api = try await running.request("GET", "/api/plugins", headers: [("Accept", "text/html")])
                #expect(try GraftValue(json: api.body)["error"]?["code"] == "token_required")
                // A refused upgrade: the server's WebSocket upgrader answers a bare 400, never 101.
                let live = try await running.live(headers: [("Origin", "http://127.0.0.1:\(running.port)")])
                #expect(live.handshake.status == 400)
            }
        }

        @Test("a Host that is not the workbench's is refused (DNS rebinding), whatever the token")
        func hostChecked() async throws {
            try await Self.withWorkbench { running in
                for host in ["evil.example:\(running.port)", "127.0.0.1:1", "attacker.test", "127.0.0.1.nip.io:\(running.port)"] {
                    let answer = try await running.request("GET", "/api/plugins", host: host)
                    #expect(answer.status == 403, "Host \(host)")
                    #expect(try GraftValue(json: answer.body)["error"]?["code"] == "host_not_allowed")
                    #expect(answer.body.contains(host))
                }
                #expect(try await running.request("GET", "/api/plugins", host: "").status == 403, "no Host at all")
                #expect(try await running.request("GET", "/api/plugins", host: "localhost:\(running.port)").status == 200)
                let live = try await running.live(headers: [running.bearer, ("Origin", "http://127.0.0.1:\(running.port)")])
                #expect(live.handshake.status == 101)
            }
        }

        @Test("an Origin that is not the workbench's is refused: another site, a sandboxed frame ('null'), the WebSocket too")
        func originChecked() async throws {
            try await Self.withWorkbench { running in
                for origin in ["http://evil.example", "null", "http://127.0.0.1:\(running.port + 1)", "https://127.0.0.1:\(running.port)"] {
                    let answer = try await running.request(
                        "POST", "/api/sessions", json: ["component": "widget"], headers: [running.bearer, ("Origin", origin)])
                    #expect(answer.status == 403, "Origin \(origin)")
                    #expect(try GraftValue(json: answer.body)["error"]?["code"] == "origin_not_allowed")
                    let live = try await running.live(headers: [running.bearer, ("Origin", origin)])
                    #expect(live.handshake.status == 400, "WebSocket from \(origin): refused, not upgraded")
                }
                let own = try await running.request(
                    "POST", "/api/sessions", json: ["component": "widget"],
                    headers: [running.bearer, ("Origin", "http://localhost:\(running.port)")])
                #expect(own.status == 201)
            }
        }

        @Test("every answer carries the content security policy and its companions; the page has no inline script")
        func securityHeaders() async throws {
            try await Self.withWorkbench { running in
                for (path, headers) in [("/", [running.bearer]), ("/api/plugins", [running.bearer]), ("/nowhere", [running.bearer]), ("/", [])] {
                    let answer = try await running.request("GET", path, headers: headers)
                    let policy = try #require(answer.header("content-security-policy"), "\(path) (status \(answer.status))")
                    #expect(policy.contains("default-src 'none'"))
                    #expect(policy.contains("script-src 'self'"))
                    // Only the page's own answer allows a nonce's scripts (the Accessibility section's axe frame).
                    #expect(policy.contains("'nonce-") == (path == "/" && !headers.isEmpty), "\(path): \(policy)")
                    #expect(policy.contains("frame-ancestors 'none'"))
                    #expect(policy.contains("connect-src 'self' ws://127.0.0.1:\(running.port)"))
                    #expect(answer.header("x-content-type-options") == "nosniff")
                    #expect(answer.header("x-frame-options") == "DENY")
                    #expect(answer.header("cache-control") == "no-store")
                }
                let page = try await running.request("GET", "/")
                #expect(page.header("content-type")?.hasPrefix("text/html") == true)
                #expect(page.body.contains("<script src=\"/assets/app.js\" nonce=\""), "\(page.body)")
                #expect(!page.body.contains("<script>"), "no inline script: the policy would block it")
                let script = try await running.request("GET", "/assets/app.js")
                #expect(script.status == 200)
                #expect(script.header("content-type")?.hasPrefix("text/javascript") == true)
                #expect(script.body.contains("frame.setAttribute('sandbox', '')"), "plugin HTML goes into a frame with no rights")
                #expect(!script.body.contains("innerHTML"), "nothing is ever parsed as HTML in the workbench's origin")
                #expect(!script.body.contains("http://") && !script.body.contains("https://"), "no CDN: works offline")
            }
        }

        @Test("paths outside the app are refused: 404 not_found with the token, 401 without; no file is ever read")
        func outsideTheApp() async throws {
            try await Self.withWorkbench { running in
                for path in ["/etc/passwd", "/../../etc/passwd", "/assets/../../etc/passwd", "/assets/..%2F..%2Fetc%2Fpasswd",
                             "/assets/app.js/..", "/api/../Package.swift", "/.git/config", "/assets/"] {
                    let answer = try await running.request("GET", path)
                    #expect([400, 404].contains(answer.status), "\(path): \(answer.status)")
                    #expect(!answer.body.contains("root:"), "\(path) leaked a file")
                    let anonymous = try await running.request("GET", path, headers: [])
                    #expect([400, 401].contains(anonymous.status), "\(path) without the token: \(anonymous.status)")
                }
                let unknown = try await running.request("GET", "/nowhere")
                #expect(try GraftValue(json: unknown.body)["error"]?["code"] == "not_found")
            }
        }
    }
}
