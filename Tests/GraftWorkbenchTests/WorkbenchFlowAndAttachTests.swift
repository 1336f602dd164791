import Foundation
import GraftDebugger
import GraftHost
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Testing

/// `--flow`: a flow run screen by screen with its transcript. `--attach`: a
/// running host's plugins and live action log through its debug endpoint.
extension WorkbenchTests {
    @Suite("Workbench: flows and attach", .timeLimit(.minutes(10)))
    struct WorkbenchFlowAndAttachTests {
        static let flow = #"""
            {
              "components": [
                {"key": "widget", "inputs": {"title": "string", "count": "number", "on": "boolean", "tags": "list"},
                 "outputs": {"tapped": {"payload": {"title": "string", "count": "number"}}}}
              ],
              "variables": {"greeting": "Welcome", "taps": null},
              "screens": [
                {"id": "first", "instances": [
                  {"id": "hero", "component": "widget", "inputs": {"title": "{{variables.greeting}}", "count": 1},
                   "on": {"tapped": [{"action": "set_variable", "variable": "taps", "value": "{{payload.count}}"},
                                      {"action": "go_to", "screen": "second"}]}}]},
                {"id": "second", "instances": [
                  {"id": "after", "component": "widget", "inputs": {"title": "Done", "count": 2}}]}
              ]
            }
            """#

        @Test("the flow runs screen by screen: renders, events sent from the page, the transcript beside them")
        func flowScreens() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try Data(Self.flow.utf8).write(to: scratch.file("flow.json"))
            let running = try await RunningWorkbench.start(
                plugins: folder, cache: scratch.file("cache"), flow: scratch.file("flow.json").path, watches: false)
            defer { Task { await running.stop() } }

            let first = try await running.json("GET", "/api/flow")
            #expect(first["screen"] == "first")
            #expect(first["instances"]?.listValue?.first?["instance"] == "hero")
            #expect(first["instances"]?.listValue?.first?["output"]?.stringValue?.contains("<h1>widget: Welcome</h1>") == true)
            #expect(first["instances"]?.listValue?.first?["events"] == ["tapped"])

            let after = try await running.json("POST", "/api/flow/events", ["instance": "hero", "interact": "tap"])
            #expect(after["screen"] == "second")
            #expect(after["variables"]?["taps"] == 1)
            let types = after["transcript"]?.listValue?.compactMap { $0["type"]?.stringValue } ?? []
            #expect(types.contains("interaction") && types.contains("event") && types.contains("action") && types.contains("navigation"))
            #expect(after["instances"]?.listValue?.first?["output"]?.stringValue?.contains("Done") == true)

            let log = try await running.json("GET", "/api/log")
            #expect(log["records"]?.listValue?.contains { $0["type"] == "action" && $0["action"]?["name"] == "set_variable" } == true)

            let bad = try await running.request("POST", "/api/flow/events", json: ["instance": "after"])
            #expect(bad.status == 400)
            #expect(try GraftValue(json: bad.body)["error"]?["code"] == "invalid_flow")
            let restarted = try await running.json("POST", "/api/flow/restart")
            #expect(restarted["screen"] == "first")
            await running.stop()
        }

        @Test("without --flow or --attach, their routes answer no_flow and not_attached")
        func absentParts() async throws {
            let scratch = try Scratch()
            let running = try await RunningWorkbench.start(in: scratch, fixtures: ["good_widget"])
            defer { Task { await running.stop() } }
            let flow = try await running.request("GET", "/api/flow")
            #expect(flow.status == 404)
            #expect(try GraftValue(json: flow.body)["error"]?["code"] == "no_flow")
            let attach = try await running.request("GET", "/api/attach")
            #expect(try GraftValue(json: attach.body)["error"]?["code"] == "not_attached")
            await running.stop()
        }

        @Test("attached to a running host: its plugins, and its action log live")
        func attach() async throws {
            let scratch = try Scratch()
            let remoteFolder = scratch.url.appendingPathComponent("remote")
            try Fixtures.build("good_echo", into: remoteFolder)
            let remote = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [remoteFolder.path]), cacheFolder: scratch.file("remote-cache").path),
                logger: quietLogger)
            remote.loadPlugins()
            let sockets = scratch.url.appendingPathComponent("run")
            try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let remoteLog = ActionLog()
            let endpoint = try remote.openDebugEndpoint(socketPath: sockets.appendingPathComponent("d.sock").path, log: remoteLog)
            defer { endpoint.close() }

            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            let running = try await RunningWorkbench.start(
                plugins: folder, cache: scratch.file("cache"), attach: endpoint.socketPath, watches: false)
            defer { Task { await running.stop() } }
            let live = try await running.live()

            let report = try await running.json("GET", "/api/attach/plugins")
            #expect(report["report"]?["plugins"]?.listValue?.map { $0["id"] } == ["test.echo"])
            #expect(try await eventually { try await running.json("GET", "/api/attach")["connected"] == true })

            let instance = try await remote.makeInstance(of: ComponentReference(key: "echo"), id: "remote-echo", onEvent: { remoteLog.record($0) })
            #expect(await instance.interact("say"))
            let relayed = try await offPool {
                try live.first { $0["type"] == "attached" && $0["records"]?.listValue?.contains { $0["instance"] == "remote-echo" } == true }
            }
            #expect(relayed?["records"]?.listValue?.first?["event"] == "said")
            let state = try await running.json("GET", "/api/attach")
            #expect(state["records"]?.listValue?.contains { $0["event"] == "said" } == true)
            instance.close()
            await running.stop()
        }
    }
}
