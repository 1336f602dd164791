import GraftDebugger
import GraftHost
import GraftTestSupport
import Testing

@Suite("Dry run")
struct SandboxTests {
    @Test("renders from the debugConfig and records what the component emits, with when")
    func debugConfigAndEmits() throws {
        let sandbox = DryRun(host: try firstPartyHost())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "date_picker", version: 2),
            steps: [.interact(action: "select", data: ["date": "2026-12-24"])]))
        #expect(result.inputs == ["label": "Pick a date", "min_date": "2026-01-01"])
        #expect(result.pluginID == "dev.graft.date-picker")
        #expect(result.rendering.text.contains("2026-12-24"))
        #expect(result.records == [
            DryRunRecord(
                instance: "sandbox",
                entry: .emitted(
                    event: "date_selected", payload: ["date": "2026-12-24", "timestamp": 1_798_070_400], origin: .component,
                    during: "interact select"))
        ])
        #expect(result.warnings.isEmpty)
        #expect(sandbox.host.openInstanceCount == 0, "the sandbox closes its instance")
    }

    @Test("a simulated event is checked against the contract: the warning sits beside its record")
    func simulatedDrift() throws {
        let sandbox = DryRun(host: try firstPartyHost())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "paywall"),
            steps: [
                .emit(event: "purchase", payload: ["title": "Pro", "price": 9.99]),
                .emit(event: "refund", payload: nil),
                .emit(event: "dismiss", payload: ["reason": 3]),
            ]))
        #expect(result.records.count == 3)
        #expect(result.records[0].warnings.isEmpty)
        #expect(result.records[1].warnings.map(\.code) == [.undeclaredEvent])
        #expect(result.records[2].warnings.map(\.code) == [.payloadSchemaMismatch])
        guard case .emitted(_, _, let origin, _) = result.records[1].entry else {
            Issue.record("not an emit record")
            return
        }
        #expect(origin == .simulated)
        #expect(result.warnings.map(\.code) == [.undeclaredEvent, .payloadSchemaMismatch])
    }

    @Test("unknown inputs and inputs of the wrong type are warned about")
    func inputDrift() throws {
        let sandbox = DryRun(host: try firstPartyHost())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "paywall"), inputs: ["title": 5, "price": 3, "colour": "red"]))
        let codes = Set(result.warnings.map(\.code))
        #expect(codes.isSuperset(of: [.inputTypeMismatch, .unknownInput]), "\(result.warnings)")
    }

    @Test("with a flow, each event lists the actions it would run, params resolved, nothing executed")
    func wiring() throws {
        let host = try firstPartyHost()
        let sandbox = DryRun(host: host, flow: try checkoutWiring())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "paywall"), instance: "offer",
            steps: [.emit(event: "purchase", payload: ["title": "Graft Pro", "price": 9.99])]))
        #expect(result.instance == "offer")
        #expect(result.inputs["price"] == 9.99, "the placement's bindings, resolved with the flow's variables")
        let wouldRun = result.records.compactMap { record -> (String, GraftValue)? in
            if case .wouldRun(let action, let params, "purchase") = record.entry { return (action, params) } else { return nil }
        }
        #expect(wouldRun.map(\.0) == ["validate", "set_variable", "format_currency", "track", "go_to"])
        #expect(wouldRun[1].1 == ["variable": "plan", "value": "Graft Pro"])
        #expect(wouldRun[2].1 == ["amount": 9.99, "currency": "USD", "variable": "price_text"])
        #expect(wouldRun[3].1["properties"]?["plan"] == "Graft Pro")
    }

    @Test("a wired action that reads a payload field the event lacks is warned about")
    func wiringDrift() throws {
        let sandbox = DryRun(host: try firstPartyHost(), flow: try checkoutWiring())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "paywall"), instance: "offer", steps: [.emit(event: "purchase", payload: ["price": 1])]))
        let setPlan = try #require(result.records.first { record in
            if case .wouldRun("set_variable", _, _) = record.entry { return true } else { return false }
        })
        #expect(setPlan.warnings.map(\.code) == [.payloadSchemaMismatch])
        #expect(result.warnings.contains { $0.code == .payloadSchemaMismatch && $0.message.contains("set_variable") })
    }

    @Test("errors: unknown interaction, unknown instance, instance of another component, missing component")
    func errors() throws {
        let host = try firstPartyHost()
        let sandbox = DryRun(host: host, flow: try checkoutWiring())
        #expect(throws: GraftError.self) {
            try sandbox.run(DryRunRequest(component: ComponentReference(key: "paywall"), steps: [.interact(action: "teleport")]))
        }
        do {
            _ = try sandbox.run(DryRunRequest(component: ComponentReference(key: "paywall"), instance: "nowhere"))
            Issue.record("an unknown instance was accepted")
        } catch {
            #expect(error.code == .unknownInstance)
            #expect(error.message.contains("delivery, offer, reschedule"))
        }
        do {
            _ = try sandbox.run(DryRunRequest(component: ComponentReference(key: "paywall"), instance: "delivery"))
            Issue.record("an instance of another component was accepted")
        } catch {
            #expect(error.code == .invalidConfig)
        }
        do {
            _ = try sandbox.run(DryRunRequest(component: ComponentReference(key: "no_such_widget")))
            Issue.record("a missing component was accepted")
        } catch {
            #expect(error.code == .customComponentNotFound)
        }
        #expect(host.openInstanceCount == 0, "every sandbox instance was closed, failures included")
    }

    @Test("a result survives the trip through JSON, and its text has the Actions called section")
    func jsonAndText() throws {
        let sandbox = DryRun(host: try firstPartyHost(), flow: try checkoutWiring())
        let result = try sandbox.run(DryRunRequest(
            component: ComponentReference(key: "paywall"), instance: "offer", steps: [.emit(event: "dismiss", payload: ["reason": "later"])]))
        #expect(try DryRunResult(json: result.json) == result)
        let text = result.text
        #expect(text.contains("Actions called (newest last):"))
        #expect(text.contains("  emit dismiss {\"reason\":\"later\"}  (simulated)"))
        #expect(text.contains("    would run close {}  (on dismiss, not executed)"))
        let json = result.json
        #expect(json["emitted"] == .list([]), "a simulated event is not one the component emitted")
        #expect(json["actions"]?.listValue?.count == 3)
    }
}
