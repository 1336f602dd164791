import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

/// Contract drift while running, with the C fixture `good_echo`: component
/// `echo` (inputs text, count, on, tags; event `said` {text}), whose
/// interactions are "say", "drift" (emits the undeclared `shout`) and
/// "bad_payload" (`said` with a number for `text`), and action `echo_action`.
@Suite("Running with drift")
struct DriftRunTests {
    /// `speaker` shows `{{variables.text}}`; saying something stores what was
    /// heard, changes the text it is bound to, and echoes it through the plugin's action.
    static let flow = """
        {"components": [{"key": "echo", "inputs": {"text": "string", "count": "number"},
                         "outputs": {"said": {"payload": {"text": "string"}}}}],
         "actions": [{"key": "echo_action", "params": {"text": "string"}}],
         "variables": {"text": "hello", "heard": null, "echoed": null},
         "screens": [{"id": "main", "instances": [
           {"id": "speaker", "component": "echo", "inputs": {"text": "{{variables.text}}", "count": "three"},
            "on": {"said": [
              {"action": "set_variable", "variable": "heard", "value": "{{payload.text}}"},
              {"action": "set_variable", "variable": "text", "value": "again: {{payload.text}}"},
              {"action": "echo_action", "params": {"text": "{{payload.text}}"}}]}}]}]}
        """

    static func runner(_ scratch: borrowing Scratch) throws -> FlowRunner {
        FlowRunner(host: try echoHost(scratch), flow: try FlowDocument(json: flow))
    }

    @Test("a mistyped input: the component gets its default, with a warning naming the instance")
    func mistypedInput() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        #expect(runner.transcript.types == ["warning", "render"])
        let warning = try #require(runner.warnings.first)
        #expect(warning.code == .inputTypeMismatch)
        #expect(warning.instanceID == "speaker")
        #expect(warning.message.contains("'count'"))
        #expect(runner.transcript.renders.first?.rendering.text == "echo:hello")
    }

    @Test("an emitted event runs its actions after interact returns; the bound instance is updated and re-rendered")
    func emittedEventUpdatesBinding() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        try runner.send(.interact(instance: "speaker", action: "say"))

        #expect(runner.variables["heard"] == "hello")
        #expect(runner.variables["text"] == "again: hello")
        #expect(runner.variables["echoed"] == "hello", "the plugin's action set a variable")
        #expect(runner.transcript.types.suffix(9) == [
            "interaction", "event", "action", "variable_change", "action", "variable_change", "action", "variable_change", "render",
        ])
        let update = try #require(runner.transcript.renders.last)
        #expect(update.reason == .update)
        #expect(update.rendering.text == "echo:again: hello")
        #expect(runner.warnings.map(\.code) == [.inputTypeMismatch], "only the start's warning; nothing new")
    }

    @Test("an undeclared event is forwarded with one warning, right after the event")
    func undeclaredEvent() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        try runner.send(.interact(instance: "speaker", action: "drift"))

        #expect(runner.transcript.types.suffix(3) == ["interaction", "event", "warning"])
        let event = try #require(runner.transcript.events.last)
        #expect(event.event == "shout")
        #expect(event.payload == ["volume": 11])
        #expect(event.wiredActions == 0)
        let drift = runner.warnings.filter { $0.code == .undeclaredEvent }
        #expect(drift.count == 1, "collected once, not from both the instance and the event")
        #expect(drift.first?.instanceID == "speaker")
        #expect(drift.first?.message.contains("'shout'") == true)
    }

    @Test("a payload off its schema is forwarded with a warning, and the wiring still runs")
    func badPayload() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        try runner.send(.interact(instance: "speaker", action: "bad_payload"))

        #expect(Array(runner.transcript.types.drop { $0 != "interaction" }.prefix(3)) == ["interaction", "event", "warning"])
        #expect(runner.warnings.filter { $0.code == .payloadSchemaMismatch }.count == 1)
        #expect(runner.variables["heard"] == 42, "forwarded as it came")
        #expect(runner.variables["text"] == "again: 42")
    }

    @Test("an injected event goes through the same drift check, and a missing payload field warns")
    func injectedDrift() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        try runner.send(.emit(instance: "speaker", event: "said", payload: ["words": "hi"]))

        let event = try #require(runner.transcript.events.last)
        #expect(event.origin == .injected)
        let drift = runner.warnings.filter { $0.code == .payloadSchemaMismatch }
        #expect(drift.count == 5, "lacks text, has words, and {{payload.text}} resolved to null in three actions: \(drift.map(\.message))")
        #expect(drift.allSatisfy { $0.instanceID == "speaker" })
        #expect(drift.contains { $0.message.contains("lacks declared field 'text'") })
        #expect(drift.contains { $0.message.contains("has field 'words'") })
        #expect(runner.variables["heard"] == .null)

        try runner.send(.emit(instance: "speaker", event: "whisper"))
        #expect(runner.warnings.last?.code == .undeclaredEvent)
    }

    @Test("a failing custom action is logged with its error and sets nothing")
    func failingAction() throws {
        let scratch = try Scratch()
        let json = Self.flow.replacingOccurrences(of: #""params": {"text": "{{payload.text}}"}"#, with: #""params": {"text": 7}"#)
        let runner = FlowRunner(host: try echoHost(scratch), flow: try FlowDocument(json: json))
        try runner.start()
        try runner.send(.interact(instance: "speaker", action: "say"))

        let action = try #require(runner.transcript.actions.last)
        #expect(action.name == "echo_action")
        #expect(!action.ok)
        #expect(action.error == "param `text` must be a string")
        #expect(action.variablesSet.isEmpty)
        #expect(runner.variables["echoed"] == .null)
        #expect(runner.warnings.last?.code == .actionFailed)
    }

    @Test("events for instances not on the screen, and unknown interactions, are warnings")
    func strayEvents() throws {
        let scratch = try Scratch()
        let runner = try Self.runner(scratch)
        try runner.start()
        try runner.send(.emit(instance: "ghost", event: "said"))
        #expect(runner.warnings.last?.instanceID == "ghost")
        #expect(runner.warnings.last?.message.contains("not live on screen 'main'") == true)

        try runner.send(.interact(instance: "speaker", action: "dance"))
        guard case .interaction(let interaction)? = runner.transcript.dropLast().last?.kind else {
            Issue.record("expected the interaction before its warning")
            return
        }
        #expect(!interaction.isKnown)
        #expect(runner.warnings.last?.message.contains("does not know the interaction 'dance'") == true)
    }
}
