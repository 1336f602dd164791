import Foundation
import GraftDebugger
import GraftHost
import GraftWebDriver
import GraftTestSupport
import GraftWorkbench
import Testing

/// The JSON API a page uses, driven over HTTP as the page drives it: the
/// plugin report, component sessions (controls, interactions, events), the
/// sandbox, validators and actions, and the live channel.
extension WorkbenchTests {
    @Suite("Workbench: JSON API", .timeLimit(.minutes(10)))
    struct WorkbenchAPITests {
        /// A plugins folder with the widget, the echo plugin (validators, an
        /// action) and one plugin that fails to load.
        static func pluginsFolder(_ scratch: borrowing Scratch) throws -> URL {
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try Fixtures.build("good_echo", into: folder)
            try Fixtures.build("bad_init_false", into: folder)
            return folder
        }

        static func withWorkbench(watches: Bool = false, _ body: (RunningWorkbench) async throws -> Void) async throws {
            let scratch = try Scratch()
            let running = try await RunningWorkbench.start(
                plugins: try pluginsFolder(scratch), cache: scratch.file("cache"), watches: watches)
            do {
                try await body(running)
            } catch {
                await running.stop()
                throw error
            }
            await running.stop()
        }

        @Test("plugins: the report graft list prints, failures with their code and reason")
        func plugins() async throws {
            try await Self.withWorkbench { running in
                let report = try await running.json("GET", "/api/plugins")
                let ids = report["plugins"]?.listValue?.compactMap { $0["id"]?.stringValue }
                #expect(ids == ["test.echo", "test.widget"])
                let widget = try #require(report["plugins"]?.listValue?.first { $0["id"] == "test.widget" })
                #expect(widget["abi"] == "1.3")
                #expect(widget["permissions"]?.listValue?.isEmpty == true)
                #expect(report["sandbox"]?["mode"]?.stringValue != nil, "the page says which sandbox is in force")
                #expect(widget["version"] == "1.0.0")
                #expect(widget["path"]?.stringValue?.hasSuffix("libgood_widget.so") == true)
                #expect(widget["components"]?.listValue?.first?["key"] == "widget")
                let failure = try #require(report["failures"]?.listValue?.first)
                #expect(failure["code"] == "plugin_init_failed")
                #expect(failure["path"]?.stringValue?.hasSuffix("libbad_init_false.so") == true)
                #expect(failure["message"]?.stringValue?.isEmpty == false)
                #expect(failure["quarantined"] == false)
            }
        }

        @Test("components: the contract with inputs and outputs in declared order; an unknown key is 404 with its code")
        func components() async throws {
            try await Self.withWorkbench { running in
                let answer = try await running.json("GET", "/api/components/widget@1")
                let inputs = answer["component"]?["inputs"]?.listValue?.compactMap { $0["key"]?.stringValue }
                #expect(inputs == ["title", "count", "on", "tags"])
                #expect(answer["component"]?["inputs"]?.listValue?.map { $0["type"] } == ["string", "number", "boolean", "list"])
                #expect(answer["component"]?["outputs"]?.listValue?.first?["event"] == "tapped")
                #expect(answer["plugin"] == "test.widget")
                let missing = try await running.request("GET", "/api/components/nothing")
                #expect(missing.status == 404)
                #expect(try GraftValue(json: missing.body)["error"]?["code"] == "custom_component_not_found")
                #expect(missing.body.contains("nothing"))
                let bad = try await running.request("GET", "/api/components/a@b")
                #expect(bad.status == 400)
                #expect(try GraftValue(json: bad.body)["error"]?["code"] == "invalid_reference")
            }
        }

        @Test("a play step that is not one, or at an index that is no whole number, is a 400 with its code; the server lives on")
        func badPlaySteps() async throws {
            try await Self.withWorkbench { running in
                let opened = try await running.json("POST", "/api/sessions", ["component": "widget"])
                let session = try #require(opened["session"]?.stringValue)
                let huge = try await running.request("POST", "/api/sessions/\(session)/step", json: ["step": ["interact": "tap"], "index": 1e300])
                #expect(huge.status == 400 && huge.body.contains("bad_request") && huge.body.contains("is not a step's index"), "\(huge.body)")
                let wrong = try await running.request("POST", "/api/sessions/\(session)/step", json: ["step": ["tap": 1], "index": 0])
                #expect(wrong.status == 400 && wrong.body.contains("invalid_story") && wrong.body.contains("step 1 names no step"), "\(wrong.body)")
                let played = try await running.json("POST", "/api/sessions/\(session)/step", ["step": ["interact": "tap"], "index": 0])
                #expect(played["result"]?["passed"] == true, "\(played)")
            }
        }

        @Test("a session renders the debugConfig as HTML, re-renders on new inputs, and reports each render's drift")
        func sessionRenders() async throws {
            try await Self.withWorkbench { running in
                let opened = try await running.json("POST", "/api/sessions", ["component": "widget"])
                let session = try #require(opened["session"]?.stringValue)
                #expect(opened["mediaType"] == "text/html")
                #expect(opened["output"]?.stringValue?.contains("<h1>widget: Hello</h1>") == true)
                #expect(opened["inputs"] == ["title": "Hello", "count": 3, "on": true, "tags": ["a", "b"]])
                #expect(opened["warnings"] == [])

                let changed = try await running.json(
                    "POST", "/api/sessions/\(session)/inputs", ["inputs": ["title": "<b>Changed</b>", "count": 5, "on": false, "tags": ["x"]]])
                #expect(changed["output"]?.stringValue?.contains("<h1>widget: &lt;b&gt;Changed&lt;/b&gt;</h1>") == true)
                #expect(changed["output"]?.stringValue?.contains("count=5 on=no") == true)
                #expect(changed["sequence"] == 2)
                #expect(changed["reason"] == "inputs")

                let drift = try await running.json(
                    "POST", "/api/sessions/\(session)/inputs", ["inputs": ["title": "T", "count": "many", "colour": "red"]])
                #expect(Set(drift["warnings"]?.listValue?.compactMap { $0["code"]?.stringValue } ?? []) == ["input_type_mismatch", "unknown_input"])
                // The drift reaches the action log as a warning record of this instance (its "warning" filter matched nothing).
                let log = try await running.json("GET", "/api/log?instance=workbench-\(session)")
                let warned = log["records"]?.listValue?.filter { $0["type"] == "warning" } ?? []
                #expect(warned.count == 1, "\(log)")
                #expect(Set(warned.first?["warnings"]?.listValue?.compactMap { $0["code"]?.stringValue } ?? []) == ["input_type_mismatch", "unknown_input"])
                #expect(warned.first?["component"] == "widget@1")

                let plain = try await running.json("POST", "/api/sessions/\(session)/media-type", ["html": false])
                #expect(plain["mediaType"] == "text/plain")
                #expect(plain["output"]?.stringValue?.hasPrefix("widget: T") == true)

                // Another container size: a render of a new instance with the same inputs, the size in the report;
                // a size that is no size is refused, naming it.
                let sized = try await running.json("POST", "/api/sessions/\(session)/size", ["width": 360, "height": 640])
                #expect(sized["reason"] == "size")
                #expect(sized["size"] == ["width": 360, "height": 640])
                #expect(sized["inputs"]?["title"] == "T")
                for bad: GraftValue in [["width": -1], ["height": 1e9], ["width": 0.5]] {
                    let refused = try await running.request("POST", "/api/sessions/\(session)/size", json: bad)
                    #expect(refused.status == 400, "\(bad)")
                    let message = try GraftValue(json: refused.body)["error"]?["message"]?.stringValue ?? ""
                    #expect(message.contains("is not a container size"), "\(message)")
                }

                let unknown = try await running.request("POST", "/api/sessions/999/inputs", json: ["inputs": [:]])
                #expect(unknown.status == 404)
                #expect(try GraftValue(json: unknown.body)["error"]?["code"] == "session_not_found")
                let notJSON = try await running.request("POST", "/api/sessions", json: .string("x"))
                #expect(notJSON.status == 400)
                #expect(try GraftValue(json: notJSON.body)["error"]?["code"] == "invalid_json")
                #expect(try await running.request("DELETE", "/api/sessions/\(session)").status == 204)
            }
        }

        @Test("interactions and simulated events reach the action log, and pages see them live")
        func liveEvents() async throws {
            try await Self.withWorkbench { running in
                let live = try await running.live()
                #expect(live.handshake.status == 101)
                let session = try #require(try await running.json("POST", "/api/sessions", ["component": "widget"])["session"]?.stringValue)
                let tapped = try await running.json("POST", "/api/sessions/\(session)/interact", ["action": "tap"])
                #expect(tapped["answered"] == true)
                let unknown = try await running.json("POST", "/api/sessions/\(session)/interact", ["action": "wave"])
                #expect(unknown["answered"] == false)

                let record = try await offPool {
                    try live.first { $0["type"] == "log" && $0["records"]?.listValue?.contains { $0["event"] == "tapped" } == true }
                }
                let event = try #require(record?["records"]?.listValue?.first { $0["event"] == "tapped" })
                #expect(event["instance"] == .string("workbench-\(session)"))
                #expect(event["payload"] == ["title": "Hello", "count": 3])
                #expect(event["plugin"] == "test.widget")

                let simulated = try await running.json("POST", "/api/sessions/\(session)/emit", ["event": "shouted", "payload": ["x": 1]])
                #expect(simulated["warnings"]?.listValue?.first?["code"] == "undeclared_event")
                let log = try await running.json("GET", "/api/log?instance=workbench-\(session)")
                let records = log["records"]?.listValue ?? []
                #expect(records.map { $0["type"] } == ["event", "warning", "event"], "\(log)")
                #expect(records.compactMap { $0["event"] } == ["tapped", "shouted"])
                // The unknown interaction's warning, between them.
                #expect(records.dropFirst().first?["warnings"]?.listValue?.first?["code"] == "unknown_interaction")
            }
        }

        @Test("the sandbox renders one-off, as graft try --json prints it")
        func sandbox() async throws {
            try await Self.withWorkbench { running in
                let result = try await running.json(
                    "POST", "/api/render",
                    ["component": "widget", "config": ["title": "Once"], "interact": [["action": "tap"]], "html": false])
                #expect(result["output"]?.stringValue?.hasPrefix("widget: Once") == true)
                #expect(result["emitted"]?.listValue?.first?["event"] == "tapped")
                let refused = try await running.request("POST", "/api/render", json: ["component": "widget", "interact": [["action": "wave"]]])
                #expect(try GraftValue(json: refused.body)["error"]?["code"] == "unknown_interaction")
            }
        }

        @Test("validators and actions: tried with values and params, answered, logged; bad input named with its code")
        func tryOuts() async throws {
            try await Self.withWorkbench { running in
                let empty = try await running.json("POST", "/api/validate", ["validator": "nonempty", "value": ""])
                #expect(empty["valid"] == false)
                #expect(empty["message"] == "must not be empty")
                #expect(try await running.json("POST", "/api/validate", ["validator": "is_even", "value": "4"])["valid"] == true)
                let missing = try await running.request("POST", "/api/validate", json: ["validator": "nope", "value": "x"])
                #expect(missing.status == 404)
                #expect(try GraftValue(json: missing.body)["error"]?["code"] == "validator_not_found")
                let params = try await running.request("POST", "/api/validate", json: ["validator": "is_even", "value": "4", "params": ["1"]])
                #expect(params.status == 400)
                #expect(try GraftValue(json: params.body)["error"]?["code"] == "invalid_param")
                let noName = try await running.request("POST", "/api/validate", json: ["value": "x"])
                #expect(noName.status == 400)
                #expect(noName.body.contains("\\\"validator\\\""))

                let ran = try await running.json("POST", "/api/action", ["action": "echo_action", "params": ["text": "hi"]])
                #expect(ran["ok"] == true)
                #expect(ran["variables"] == ["echoed": "hi"])
                let failed = try await running.json("POST", "/api/action", ["action": "echo_action", "params": [:]])
                #expect(failed["ok"] == false)
                #expect(failed["error"] == "param `text` must be a string")
                let unknown = try await running.request("POST", "/api/action", json: ["action": "nope"])
                #expect(try GraftValue(json: unknown.body)["error"]?["code"] == "action_not_found")

                let log = try await running.json("GET", "/api/log")
                let kinds = log["records"]?.listValue?.compactMap { $0["type"]?.stringValue }
                #expect(kinds == ["validation", "validation", "action", "action"])
            }
        }

        @Test("a component that crashes in render shows an error card; the server and the other plugins go on")
        func crashShowsErrorCard() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            try Fixtures.build("bad_runtime", into: folder, defines: ["FAULT_IN": "\"render\"", "FAULT": "\"segv\""])
            let running = try await RunningWorkbench.start(plugins: folder, cache: scratch.file("cache"), watches: false)
            defer { Task { await running.stop() } }
            let crashed = try await running.json("POST", "/api/sessions", ["component": "fragile"])
            #expect(crashed["error"]?["code"] == "plugin_crashed")
            #expect(crashed["error"]?["message"]?.stringValue?.contains("SIGSEGV") == true)
            #expect(crashed["output"] == nil)
            let session = try #require(crashed["session"]?.stringValue)
            let again = try await running.json("POST", "/api/sessions/\(session)/inputs", ["inputs": ["text": "again"]])
            #expect(again["error"]?["code"] == "plugin_crashed", "the next call starts a new child, which crashes again")

            #expect(try await running.request("GET", "/api/plugins").status == 200, "the server is alive")
            let widget = try await running.json("POST", "/api/sessions", ["component": "widget"])
            #expect(widget["output"]?.stringValue?.contains("widget: Hello") == true)
            await running.stop()
        }
    }
}
