import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

@Suite("Flow runner behaviour")
struct RunnerBehaviourTests {
    static let pickerV2 = """
        {"key": "date_picker", "version": 2, "inputs": {"label": "string", "min_date": "string"},
         "outputs": {"date_selected": {"payload": {"date": "string", "timestamp": "number"}}}}
        """

    @Test("a missing component renders a placeholder, records why, and the rest of the screen renders")
    func placeholder() throws {
        let json = """
            {"components": [{"key": "rating", "outputs": {"rated": {"payload": {"stars": "number"}}}},
                            {"key": "date_picker", "version": 7}, \(Self.pickerV2)],
             "variables": {"stars": null},
             "screens": [{"id": "review", "instances": [
               {"id": "stars", "component": "rating",
                "on": {"rated": [{"action": "set_variable", "variable": "stars", "value": "{{payload.stars}}"}]}},
               {"id": "future", "component": "date_picker", "version": 7},
               {"id": "date", "component": "date_picker", "version": 2, "inputs": {"label": "When?", "min_date": "2026-01-01"}}]}]}
            """
        let runner = FlowRunner(host: try firstPartyHost(), flow: try FlowDocument(json: json))
        try runner.start()

        let renders = runner.transcript.renders
        #expect(renders.map(\.instance) == ["stars", "future", "date"])
        #expect(renders.map(\.isPlaceholder) == [true, true, false])
        #expect(renders[0].rendering.text.contains("rating@1"))
        #expect(renders[0].rendering.text.contains("custom_component_not_found"))
        #expect(renders[1].rendering.text.contains("registered versions: 1, 2"))
        #expect(renders[2].rendering.text == "When?: [ ____-__-__ ▾ ]")
        #expect(runner.warnings.map(\.code) == [.customComponentNotFound, .componentVersionMismatch])
        #expect(runner.warnings.map(\.instanceID) == ["stars", "future"])

        // A placeholder cannot be interacted with, but a fed event still runs its wiring.
        try runner.send(.interact(instance: "stars", action: "tap"))
        #expect(runner.warnings.last?.code == .customComponentNotFound)
        try runner.send(.emit(instance: "stars", event: "rated", payload: ["stars": 4]))
        #expect(runner.variables["stars"] == 4)
    }

    @Test("a placeholder in HTML is an element naming the component")
    func htmlPlaceholder() throws {
        let json = """
            {"components": [{"key": "rating"}], "screens": [{"id": "s", "instances": [{"id": "r", "component": "rating"}]}]}
            """
        let runner = FlowRunner(host: emptyHost(), flow: try FlowDocument(json: json), mediaType: .html)
        try runner.start()
        let render = try #require(runner.transcript.renders.first)
        #expect(render.rendering.mediaType == .html)
        #expect(render.rendering.text.hasPrefix(#"<div class="graft-placeholder" data-component="rating@1""#))
    }

    /// A date picker whose label fits in 31 columns; narrower containers shorten it.
    static func sizedFlow(flowSize: String, screenSize: String) -> String {
        """
        {"components": [\(pickerV2)], \(flowSize)
         "screens": [{"id": "s", \(screenSize) "instances": [
           {"id": "d", "component": "date_picker", "version": 2, "inputs": {"label": "Delivery date", "min_date": "2026-01-01"}}]}]}
        """
    }

    @Test("instances get the real container size: the screen's, else the flow's, unless the caller overrides it")
    func containerSize() throws {
        let host = try firstPartyHost()
        func render(_ json: String, override: ContainerSize? = nil) throws -> String {
            let runner = FlowRunner(host: host, flow: try FlowDocument(json: json), containerSize: override)
            try runner.start()
            return runner.transcript.renders.first?.rendering.text ?? ""
        }
        let full = "Delivery date: [ ____-__-__ ▾ ]"
        #expect(try render(Self.sizedFlow(flowSize: "", screenSize: "")) == full, "unbounded without a size")
        let flowWide = try render(Self.sizedFlow(flowSize: #""size": {"width": 20},"#, screenSize: ""))
        #expect(flowWide.count == 20)
        #expect(flowWide != full)
        let screenWins = try render(Self.sizedFlow(flowSize: #""size": {"width": 20},"#, screenSize: #""size": {"width": 24},"#))
        #expect(screenWins.count == 24)
        let overridden = try render(
            Self.sizedFlow(flowSize: #""size": {"width": 20},"#, screenSize: #""size": {"width": 24},"#),
            override: ContainerSize(width: 80, height: 10))
        #expect(overridden == full)
    }

    @Test("go_to waits for the rest of the list; the new screen sees variables set after it")
    func goToIsDeferred() throws {
        let json = """
            {"components": [\(Self.pickerV2)],
             "variables": {"label": "first"},
             "screens": [
               {"id": "a", "instances": [{"id": "one", "component": "date_picker", "version": 2,
                 "on": {"date_selected": [{"action": "go_to", "screen": "b"},
                                          {"action": "set_variable", "variable": "label", "value": "picked {{payload.date}}"}]}}]},
               {"id": "b", "instances": [{"id": "two", "component": "date_picker", "version": 2,
                                          "inputs": {"label": "{{variables.label}}", "min_date": "2026-01-01"}}]}]}
            """
        let runner = FlowRunner(host: try firstPartyHost(), flow: try FlowDocument(json: json))
        try runner.start()
        try runner.send(.interact(instance: "one", action: "select", data: ["date": "2026-03-04"]))
        #expect(runner.currentScreen == "b")
        #expect(runner.transcript.renders.last?.rendering.text == "picked 2026-03-04: [ ____-__-__ ▾ ]")
        #expect(runner.transcript.types.suffix(3) == ["variable_change", "navigation", "render"])
    }

    @Test("start twice, or send before start, is refused")
    func misuse() throws {
        let json = #"{"screens": [{"id": "empty"}]}"#
        let runner = FlowRunner(host: emptyHost(), flow: try FlowDocument(json: json))
        #expect(throws: GraftError.self) { try runner.send(.emit(instance: "x", event: "e")) }
        try runner.start()
        #expect(runner.currentScreen == "empty")
        #expect(runner.transcript.isEmpty)
        #expect(throws: GraftError.self) { try runner.start() }
    }
}
