import Foundation
import GraftDebugger
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

@Suite("Action log fed by a flow runner and hot swaps")
struct FlowLogFeedTests {
    @Test("the checkout flow's events and actions land in the log with plugin, component, instance and results")
    func checkout() throws {
        let host = try firstPartyHost()
        let log = ActionLog()
        let feed = FlowLogFeed(log: log, host: host)
        let runner = FlowRunner(host: host, flow: try checkoutWiring().document, observer: feed)
        try runner.start()
        try runner.send(.interact(instance: "delivery", action: "select", data: ["date": "2026-12-24"]))
        try runner.send(.emit(instance: "offer", event: "purchase", payload: ["title": "Graft Pro", "price": 9.99]))

        let records = log.records()
        let picked = try #require(records.first { $0.kind == .event })
        #expect(picked.pluginID == "dev.graft.date-picker")
        #expect(picked.component == ComponentReference(key: "date_picker", version: 2))
        #expect(picked.instance == "delivery")
        #expect(picked.screen == "pick_date")
        #expect(picked.event == "date_selected")
        #expect(picked.detail == .event(payload: ["date": "2026-12-24", "timestamp": 1_798_070_400], origin: .component, wiredActions: 3))
        #expect(picked.warnings.isEmpty)

        let deliveryActions = log.records(matching: ActionLogFilter(instance: "delivery")).compactMap { record -> String? in
            if case .action(let action) = record.detail { return action.name } else { return nil }
        }
        #expect(deliveryActions == ["set_variable", "track", "go_to"])

        let purchase = log.records(matching: ActionLogFilter(event: "purchase"))
        #expect(purchase.allSatisfy { $0.pluginID == "dev.graft.checkout" && $0.component == ComponentReference(key: "paywall") })
        #expect(purchase.first?.detail == .event(payload: ["title": "Graft Pro", "price": 9.99], origin: .injected, wiredActions: 5))
        let currency = try #require(purchase.compactMap { record -> LoggedAction? in
            if case .action(let action) = record.detail, action.name == "format_currency" { return action } else { return nil }
        }.first)
        #expect(currency.ok)
        #expect(currency.result == "$9.99")
        #expect(currency.variablesSet == ["price_text": "$9.99"])
        let validation = try #require(purchase.compactMap { record -> LoggedValidation? in
            if case .validation(let validation) = record.detail { return validation } else { return nil }
        }.first)
        #expect(validation.validator == "luhn")
        #expect(validation.isValid)
        #expect(validation.value == "4242 4242 4242 4242")
    }

    @Test("an event's drift warnings sit in the event's record")
    func driftBesideTheEvent() throws {
        let host = try firstPartyHost()
        let log = ActionLog()
        let feed = FlowLogFeed(log: log, host: host)
        let runner = FlowRunner(host: host, flow: try checkoutWiring().document, observer: feed)
        try runner.start()
        try runner.send(.emit(instance: "delivery", event: "date_selected", payload: ["date": 20261224]))
        let event = try #require(log.records(matching: ActionLogFilter(instance: "delivery")).first { $0.kind == .event })
        let codes = Set(event.warnings.map(\.code))
        #expect(codes == [.payloadSchemaMismatch], "the number date and the missing timestamp: \(event.warnings)")
        #expect(event.warnings.count == 2)
        #expect(!log.records().contains { $0.kind == .warning && $0.instance == "delivery" }, "not repeated as separate records")
    }

    @Test("the newest record waits for the warnings that follow it, and is published when the runner's step ends")
    func stepEndPublishesTheLastRecord() throws {
        let host = try firstPartyHost()
        let log = ActionLog()
        let feed = FlowLogFeed(log: log, host: host)
        let runner = FlowRunner(host: host, flow: try checkoutWiring().document, observer: feed)
        try runner.start()
        let before = log.records().count
        // Nothing is wired to an undeclared event; its drift warning follows it in the transcript.
        try runner.send(.emit(instance: "delivery", event: "waved"))
        let record = try #require(log.records().last)
        #expect(log.records().count == before + 1, "published as send returned, once")
        #expect(record.event == "waved")
        #expect(record.detail == .event(payload: nil, origin: .injected, wiredActions: 0))
        #expect(record.warnings.map(\.code).contains(.undeclaredEvent), "the warning sits in the record it concerns")

        // Fed by hand, the feed holds the event back until the step ends.
        let handFed = ActionLog()
        let direct = FlowLogFeed(log: handFed, host: host)
        let event = try #require(runner.transcript.last { if case .event = $0.kind { true } else { false } })
        direct.flowRecorded(event)
        #expect(handFed.records().isEmpty)
        direct.flowStepFinished()
        #expect(handFed.records().map(\.event) == ["waved"])
        direct.flowStepFinished()
        #expect(handFed.records().count == 1, "a second step end publishes nothing more")
    }

    @Test("hot swaps are recorded with the plugin, versions and the instances moved")
    func swaps() throws {
        let scratch = try Scratch()
        let host = emptyHost(loadsFromCopies: true)
        let log = ActionLog()
        let token = log.recordSwaps(of: host)
        defer { host.removeSwapObserver(token) }
        let library = try Fixtures.build("good_echo", into: scratch.url)
        try host.load(pluginAt: library.path)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), id: "e1", inputs: ["text": "hi"])
        defer { echo.close() }
        try Fixtures.build("good_echo", into: scratch.url, defines: ["ECHO_PLUGIN_VERSION": "\"2.0.0\"", "ECHO_PREFIX": "\"v2:\""])
        host.reload(pluginAt: library.path)
        try Data("not an elf".utf8).write(to: library)
        host.reload(pluginAt: library.path)

        let swaps = log.records().filter { $0.kind == .swap }
        #expect(swaps.count == 2)
        guard case .swap(let swapped) = swaps.first?.detail else {
            Issue.record("no swap record")
            return
        }
        #expect(swaps.first?.pluginID == "test.echo")
        #expect(swapped.outcome == "swapped")
        #expect(swapped.oldVersion == "1.0.0")
        #expect(swapped.newVersion == "2.0.0")
        #expect(swapped.recreated == ["e1"])
        guard case .swap(let failed) = swaps.last?.detail else {
            Issue.record("no record of the failed swap")
            return
        }
        #expect(failed.outcome == "failed")
        #expect(swaps.last?.warnings.first?.code == .notASharedLibrary)
        #expect(log.records(matching: ActionLogFilter(pluginID: swaps.first?.pluginID)).count == 2, "filterable by plugin")
        #expect(try echo.render().text == "v2:hi")
    }
}
