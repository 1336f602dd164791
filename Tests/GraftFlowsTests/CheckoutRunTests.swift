import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

/// The example checkout flow run against the real first-party plugins,
/// driven by the example events file.
@Suite("Running the checkout flow")
struct CheckoutRunTests {
    static func events() throws -> [FlowEvent] {
        let text = try String(contentsOf: repositoryFile("Examples/flows/checkout.events.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { line throws(GraftError) in try FlowEvent(json: String(line)) }
    }

    @Test("date → paywall → confirmation: renders, actions, variables, and the transcript in order")
    func scriptedRun() throws {
        let log = EntryLog()
        let runner = FlowRunner(
            host: try firstPartyHost(), flow: try FlowDocument(json: try checkoutFlowText()), observer: log.observer)
        try runner.start()
        for event in try Self.events() { try runner.send(event) }

        #expect(runner.variables == [
            "earliest_date": "2026-12-01", "delivery_date": "2026-12-27", "offer_price": 9.99,
            "card_number": "4242 4242 4242 4242", "card_error": nil, "plan": "Graft Pro", "price_text": "$9.99",
        ])
        #expect(runner.currentScreen == "confirmation")
        #expect(!runner.isClosed)
        #expect(runner.warnings.isEmpty, "\(runner.warnings)")
        #expect(runner.transcript.types == [
            "render",
            "interaction", "event", "action", "variable_change", "action", "action", "navigation", "render",
            "event", "action", "validation", "action", "variable_change", "action", "variable_change", "action", "action",
            "navigation", "render",
            "interaction", "event", "action", "variable_change", "action", "render",
        ])
        #expect(log.all == runner.transcript, "the observer saw every entry as it was recorded")

        let renders = runner.transcript.renders
        #expect(renders.map(\.screen) == ["pick_date", "paywall", "confirmation", "confirmation"])
        #expect(renders.map(\.reason) == [.enter, .enter, .enter, .update])
        #expect(renders[0].rendering.text == "Delivery date: [ ____-__-__ ▾ ]")
        #expect(renders[1].rendering.text.contains("• Delivery on 2026-12-24"), "a list input interpolates a variable")
        #expect(renders[1].rendering.text.contains("Price: 9.99"), "a variable bound whole keeps its number type")
        #expect(renders[2].rendering.text == "Arrives 2026-12-24, $9.99 paid: [ ____-__-__ ▾ ]")
        #expect(renders[3].rendering.text == "Arrives 2026-12-27, $9.99 paid: [ 2026-12-27 ▾ ]",
                "the label re-resolved after delivery_date changed")

        let events = runner.transcript.events
        #expect(events.map(\.event) == ["date_selected", "purchase", "date_selected"])
        #expect(events.map(\.origin) == [.component, .injected, .component])
        #expect(events[0].payload == ["date": "2026-12-24", "timestamp": 1_798_070_400])

        let actions = runner.transcript.actions
        #expect(actions.map(\.name) == [
            "set_variable", "track", "go_to", "validate", "set_variable", "format_currency", "track", "go_to", "set_variable", "track",
        ])
        #expect(actions.allSatisfy { $0.ok })
        let currency = try #require(actions.first { $0.name == "format_currency" })
        #expect(currency.params == ["amount": 9.99, "currency": "USD", "variable": "price_text"])
        #expect(currency.result == "$9.99")
        #expect(currency.variablesSet == ["price_text": "$9.99"])
        let purchase = try #require(actions.first { $0.name == "track" && $0.event == "purchase" })
        #expect(purchase.params == ["event": "purchase", "properties": ["plan": "Graft Pro", "price": 9.99, "delivery": "2026-12-24"]])

        #expect(runner.transcript.validations.map(\.validator) == ["luhn"])
        #expect(runner.transcript.validations.first?.isValid == true)
        #expect(runner.transcript.navigations.map { "\($0.from) → \($0.to)" } == ["pick_date → paywall", "paywall → confirmation"])
        let rescheduled = try #require(runner.transcript.variableChanges.last)
        #expect(rescheduled.name == "delivery_date")
        #expect(rescheduled.oldValue == "2026-12-24")
        #expect(rescheduled.newValue == "2026-12-27")
    }

    @Test("an invalid card runs on_invalid and stops: no go_to, no purchase")
    func invalidCard() throws {
        let text = try checkoutFlowText().replacingOccurrences(of: "4242 4242 4242 4242", with: "4242 4242 4242 4241")
        let runner = FlowRunner(host: try firstPartyHost(), flow: try FlowDocument(json: text))
        try runner.start()
        let events = try Self.events()
        try runner.send(events[0])
        try runner.send(events[1])

        #expect(runner.currentScreen == "paywall", "the go_to after the failed validate did not run")
        #expect(runner.variables["card_error"] == "The card number is not valid.")
        #expect(runner.variables["plan"] == .null)
        #expect(runner.variables["price_text"] == .null)
        let validation = try #require(runner.transcript.validations.first)
        #expect(!validation.isValid)
        #expect(validation.value == "4242 4242 4242 4241")
        #expect(validation.message != nil)
        let afterPurchase = runner.transcript.actions.drop { $0.event != "purchase" }.map(\.name)
        #expect(afterPurchase == ["validate", "set_variable", "track"])
        #expect(runner.transcript.actions.last?.params["properties"] == ["plan": "Graft Pro"])
    }

    @Test("dismissing the paywall tracks it and closes the flow; later events are refused")
    func dismissCloses() throws {
        let runner = FlowRunner(host: try firstPartyHost(), flow: try FlowDocument(json: try checkoutFlowText()))
        try runner.start()
        try runner.send(try Self.events()[0])
        try runner.send(.interact(instance: "offer", action: "dismiss", data: ["reason": "too_expensive"]))

        #expect(runner.isClosed)
        #expect(runner.currentScreen == nil)
        #expect(runner.transcript.types.suffix(4) == ["event", "action", "action", "close"])
        #expect(runner.transcript.actions.suffix(2).map(\.name) == ["track", "close"])
        #expect(runner.transcript.actions.last { $0.name == "track" }?.params["properties"] == ["reason": "too_expensive"])
        #expect(throws: GraftError.self) { try runner.send(.interact(instance: "offer", action: "purchase")) }
    }

    @Test("JSON: screens visited, transcript, warnings, variables; time only when asked")
    func jsonForm() throws {
        let runner = FlowRunner(host: try firstPartyHost(), flow: try FlowDocument(json: try checkoutFlowText()))
        try runner.start()
        for event in try Self.events() { try runner.send(event) }

        let json = runner.json()
        #expect(json.objectValue.map { Set($0.keys) } == ["screens", "transcript", "warnings", "variables"])
        let visits = try #require(json["screens"]?.listValue)
        #expect(visits.map { $0["screen"] } == ["pick_date", "paywall", "confirmation"])
        #expect(visits[2]["instances"]?.listValue?.first?["output"] == "Arrives 2026-12-27, $9.99 paid: [ 2026-12-27 ▾ ]",
                "a visit keeps each instance's last rendering")
        let transcript = try #require(json["transcript"]?.listValue)
        #expect(transcript.allSatisfy { $0["time"] == nil })
        #expect(transcript.first == [
            "type": "render", "screen": "pick_date", "instance": "delivery", "component": "date_picker@2", "reason": "enter",
            "mediaType": "text/plain", "output": "Delivery date: [ ____-__-__ ▾ ]", "placeholder": false,
        ])
        #expect(transcript.contains { $0 == ["type": "variable_change", "name": "plan", "old": nil, "new": "Graft Pro"] })
        #expect(json["variables"]?["price_text"] == "$9.99")
        #expect(json["warnings"] == [])

        let timed = try #require(runner.json(includingTimestamps: true)["transcript"]?.listValue)
        #expect(timed.allSatisfy { $0["time"]?.stringValue?.hasSuffix("Z") == true })
    }
}
