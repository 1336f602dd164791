import Foundation
import GraftHost
import GraftTestSupport
import GraftWorkbench
import Hummingbird
import HummingbirdTesting
import Testing

/// The workbench's routes in memory (HummingbirdTesting's `.router`): no
/// socket, no port, no server; the same router `graft workbench` serves.
extension WorkbenchTests {
    @Suite("Workbench: the router in memory")
    struct WorkbenchRouterTests {
        static func workbench(_ scratch: borrowing Scratch) throws -> Workbench {
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [try WorkbenchAPITests.pluginsFolder(scratch).path]),
                    cacheFolder: scratch.file("cache").path, isolation: .inProcess),
                logger: quietLogger)
            host.loadPlugins()
            return try Workbench(host: host, options: WorkbenchOptions(watchesPlugins: false), logger: quietLogger)
        }

        static func json(_ response: TestResponse) throws -> GraftValue {
            try GraftValue(json: String(buffer: response.body))
        }

        @Test("the API answers without a server: the plugin report, a session rendered and driven, a validator, an unknown route")
        func routes() async throws {
            let scratch = try Scratch()
            let workbench = try Self.workbench(scratch)
            let application = Application(router: workbench.router(guardedAsIfOn: nil))
            try await application.test(.router) { client in
                let plugins = try await client.execute(uri: "/api/plugins", method: .get)
                #expect(plugins.status == .ok)
                let ids = try Self.json(plugins)["plugins"]?.listValue?.compactMap { $0["id"]?.stringValue }
                #expect(ids == ["test.echo", "test.widget"])
                #expect(try Self.json(plugins)["failures"]?.listValue?.first?["code"] == "plugin_init_failed")

                let opened = try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: #"{"component": "echo"}"#))
                #expect(opened.status == .created, "\(String(buffer: opened.body))")
                let session = try #require(try Self.json(opened)["session"]?.stringValue, "\(String(buffer: opened.body))")
                #expect(try Self.json(opened)["output"]?.stringValue?.contains("echo:hello") == true, "\(String(buffer: opened.body))")
                let said = try await client.execute(
                    uri: "/api/sessions/\(session)/interact", method: .post, body: ByteBuffer(string: #"{"action": "say"}"#))
                #expect(said.status == .ok, "\(said.status) \(String(buffer: said.body))")
                #expect(try Self.json(said)["answered"] == true, "\(String(buffer: said.body))")

                let validated = try await client.execute(
                    uri: "/api/validate", method: .post, body: ByteBuffer(string: #"{"validator": "nonempty", "value": ""}"#))
                #expect(validated.status == .ok, "\(validated.status) \(String(buffer: validated.body))")
                #expect(try Self.json(validated)["valid"] == false, "\(String(buffer: validated.body))")
                #expect(try Self.json(validated)["plugin"] == "test.echo", "\(String(buffer: validated.body))")

                // Without the guard (which turns it into {"error": …} with its code), a bare 404.
                let unknown = try await client.execute(uri: "/api/no-such-thing", method: .get)
                #expect(unknown.status == .notFound)
            }
            workbench.host.shutDown()
        }

        @Test("a WebAssembly plugin in the workbench: listed as wasm32, rendered, driven and validated like a .so")
        func webAssembly() async throws {
            let scratch = try Scratch()
            try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
            let host = GraftHost(
                configuration: GraftConfiguration(searchPath: SearchPath(folders: [scratch.file("plugins").path]), cacheFolder: nil),
                logger: quietLogger)
            host.loadPlugins()
            let workbench = try Workbench(host: host, options: WorkbenchOptions(watchesPlugins: false), logger: quietLogger)
            let application = Application(router: workbench.router(guardedAsIfOn: nil))
            try await application.test(.router) { client in
                let plugins = try Self.json(try await client.execute(uri: "/api/plugins", method: .get))
                let plugin = plugins["plugins"]?.listValue?.first
                #expect(plugin?["id"] == "com.example.wasm-hello")
                #expect(plugin?["format"] == "wasm32")
                let opened = try await client.execute(uri: "/api/sessions", method: .post, body: ByteBuffer(string: #"{"component": "greeting"}"#))
                #expect(opened.status == .created, "\(String(buffer: opened.body))")
                #expect(try Self.json(opened)["output"]?.stringValue?.contains("Hello, Ada") == true, "\(String(buffer: opened.body))")
                let session = try #require(try Self.json(opened)["session"]?.stringValue)
                let said = try await client.execute(
                    uri: "/api/sessions/\(session)/interact", method: .post, body: ByteBuffer(string: #"{"action": "say"}"#))
                #expect(try Self.json(said)["answered"] == true, "\(String(buffer: said.body))")
                let validated = try await client.execute(
                    uri: "/api/validate", method: .post, body: ByteBuffer(string: #"{"validator": "even_length", "value": "abc"}"#))
                #expect(try Self.json(validated)["valid"] == false, "\(String(buffer: validated.body))")
                #expect(try Self.json(validated)["message"] == "has an odd length", "\(String(buffer: validated.body))")
            }
            workbench.host.shutDown()
        }

        @Test("behind its guard, a Host that is not this workbench's (the test client's bare localhost) is refused with host_not_allowed and the security headers")
        func guarded() async throws {
            let scratch = try Scratch()
            let workbench = try Self.workbench(scratch)
            // The test client sends Host: localhost, with no port: not this workbench's (DNS rebinding).
            let application = Application(router: workbench.router(guardedAsIfOn: 8080))
            let bearer = "Bearer \(workbench.options.token.value)"
            try await application.test(.router) { client in
                let refused = try await client.execute(uri: "/api/plugins", method: .get, headers: [.authorization: bearer])
                #expect(refused.status.code >= 400, "\(refused.status)")
                #expect(try Self.json(refused)["error"]?["code"] == "host_not_allowed", "\(String(buffer: refused.body))")
                #expect(refused.headers[.contentSecurityPolicy] != nil, "refusals carry the security headers too")
            }
            workbench.host.shutDown()
        }
    }
}
