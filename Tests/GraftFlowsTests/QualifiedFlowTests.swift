import Foundation
import GraftHost
import GraftTestSupport
import Testing

@testable import GraftFlows

/// A flow names the plugin of a component or action it defines (`"plugin"`)
/// and gets that plugin's, whoever answers the bare name on the host.
@Suite("Flows that name their plugins")
struct QualifiedFlowTests {
    static let flowText = """
        {"components": [{"key": "echo", "plugin": "test.echo-b", "inputs": {"text": "string", "count": "number", "on": "boolean", "tags": "list"},
                         "outputs": {"said": {"payload": {"text": "string"}}}}],
         "actions": [{"key": "echo_action", "plugin": "test.echo-b", "params": {"text": "string"}}],
         "variables": {"echoed": ""},
         "screens": [{"id": "only", "instances": [{"id": "e", "component": "echo", "inputs": {"text": "hi"},
                      "on": {"said": [{"action": "echo_action", "params": {"text": "{{payload.text}}"}}]}}]}]}
        """

    @Test("instances and actions of a definition that names its plugin use that plugin's; the checker finds nothing")
    func qualified() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
        try host.load(pluginAt: Fixtures.build(
            "good_echo", into: scratch.url,
            defines: ["ECHO_PLUGIN_ID": "\"test.echo-b\"", "ECHO_PREFIX": "\"b:\"", "ECHO_NATIVE_NAME": "\"is_even_b\""],
            outputName: "libgood_echo_b.so").path)
        let flow = try FlowDocument(json: Self.flowText)
        #expect(flow.screens.first?.instances.first?.component == ComponentReference(key: "echo", plugin: "test.echo-b"))
        #expect(flow.actions.first?.reference.description == "test.echo-b/echo_action@1")

        let report = FlowChecker(host: host).check(flow)
        #expect(report.findings.isEmpty, "\(report.findings)")

        let runner = FlowRunner(host: host, flow: flow)
        try runner.start()
        try runner.send(.emit(instance: "e", event: "said", payload: ["text": "yo"]))
        let visit = try #require(runner.json()["screens"]?.listValue?.first)
        #expect(visit["instances"]?.listValue?.first?["output"] == "b:hi", "\(visit)")
        #expect(runner.json()["variables"]?["echoed"] == "yo")
    }

    @Test("a plugin id that is not one is refused where it is written", arguments: ["", "not an id", "a/b"])
    func badPlugin(id: String) {
        let text = Self.flowText.replacingOccurrences(of: #""plugin": "test.echo-b", "inputs""#, with: #""plugin": "\#(id)", "inputs""#)
        let error = #expect(throws: GraftError.self) { try FlowDocument(json: text) }
        #expect(error?.code == .invalidFlow)
        #expect(error?.message.contains("$.components[0].plugin") == true, "\(error?.message ?? "")")
    }
}
