import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

@Suite("Flow contract checker")
struct FlowCheckerTests {
    /// A finding as the table states it: code, detail and JSON path.
    struct Expected: Sendable, Hashable, CustomStringConvertible {
        var code: GraftError.Code
        var detail: CheckFinding.Detail?
        var path: String
        var description: String { "\(code.rawValue)/\(detail?.rawValue ?? "-") at \(path)" }

        init(_ code: GraftError.Code, _ detail: CheckFinding.Detail?, _ path: String) {
            self.code = code
            self.detail = detail
            self.path = path
        }

        init(_ code: GraftError.Code, _ path: String) {
            self.init(code, nil, path)
        }

        init(_ finding: CheckFinding) {
            self.init(finding.code, finding.detail, finding.path)
        }
    }

    /// One purpose-broken flow and exactly the findings it must produce.
    struct Broken: Sendable, CustomTestStringConvertible {
        var why: String
        var json: String
        var expected: [Expected]
        var testDescription: String { why }
    }

    /// The editor's definitions as the first-party plugins register them.
    static let pickerV2 = """
        {"key": "date_picker", "version": 2, "inputs": {"label": "string", "min_date": "string"},
         "outputs": {"date_selected": {"payload": {"date": "string", "timestamp": "number"}}}}
        """
    static let paywall = """
        {"key": "paywall", "inputs": {"title": "string", "price": "number", "features": "list"},
         "outputs": {"purchase": {"payload": {"title": "string", "price": "number"}}, "dismiss": {"payload": {"reason": "string"}}}}
        """

    /// A one-screen flow placing `instance` of the given definitions.
    static func flow(components: [String], instance: String, variables: String = "{}", extra: String = "") -> String {
        """
        {"components": [\(components.joined(separator: ", "))], "variables": \(variables)\(extra),
         "screens": [{"id": "main", "instances": [\(instance)]}]}
        """
    }

    static let broken: [Broken] = [
        Broken(
            why: "a component no plugin registers",
            json: flow(components: [#"{"key": "rating", "inputs": {"stars": "number"}}"#], instance: #"{"id": "r", "component": "rating"}"#),
            expected: [
                Expected(.customComponentNotFound, "$.components[0]"),
                Expected(.customComponentNotFound, "$.screens[0].instances[0].component"),
            ]),
        Broken(
            why: "a version the plugin does not have, while others exist",
            json: flow(
                components: [#"{"key": "date_picker", "version": 3, "inputs": {"label": "string"}}"#],
                instance: #"{"id": "d", "component": "date_picker", "version": 3}"#),
            expected: [
                Expected(.componentVersionMismatch, "$.components[0].version"),
                Expected(.componentVersionMismatch, "$.screens[0].instances[0].version"),
            ]),
        Broken(
            why: "input keys and types: wrong type, only in the editor, only in the plugin",
            json: flow(
                components: [#"{"key": "date_picker", "version": 2, "inputs": {"label": "number", "colour": "string"}, "outputs": {"date_selected": {"payload": {"date": "string", "timestamp": "number"}}}}"#],
                instance: #"{"id": "d", "component": "date_picker", "version": 2}"#),
            expected: [
                Expected(.contractMismatch, .inputMissingInPlugin, "$.components[0].inputs.colour"),
                Expected(.contractMismatch, .inputType, "$.components[0].inputs.label"),
                Expected(.contractMismatch, .inputMissingInEditor, "$.components[0].inputs.min_date"),
            ]),
        Broken(
            why: "events: one the plugin lacks, one the editor lacks",
            json: flow(
                components: [#"{"key": "paywall", "inputs": {"title": "string", "price": "number", "features": "list"}, "outputs": {"purchase": {"payload": {"title": "string", "price": "number"}}, "refund": {}}}"#],
                instance: #"{"id": "p", "component": "paywall"}"#),
            expected: [
                Expected(.contractMismatch, .eventMissingInEditor, "$.components[0].outputs.dismiss"),
                Expected(.contractMismatch, .eventMissingInPlugin, "$.components[0].outputs.refund"),
            ]),
        Broken(
            why: "payload fields: wrong type, only in the editor, only in the plugin",
            json: flow(
                components: [#"{"key": "date_picker", "version": 2, "inputs": {"label": "string", "min_date": "string"}, "outputs": {"date_selected": {"payload": {"date": "number", "when": "string"}}}}"#],
                instance: #"{"id": "d", "component": "date_picker", "version": 2}"#),
            expected: [
                Expected(.contractMismatch, .payloadFieldType, "$.components[0].outputs.date_selected.payload.date"),
                Expected(.contractMismatch, .payloadFieldMissingInEditor, "$.components[0].outputs.date_selected.payload.timestamp"),
                Expected(.contractMismatch, .payloadFieldMissingInPlugin, "$.components[0].outputs.date_selected.payload.when"),
            ]),
        Broken(
            why: "bindings: an undefined input, a constant of the wrong type, a variable of the wrong type",
            json: flow(
                components: [paywall],
                instance: #"{"id": "p", "component": "paywall", "inputs": {"title": 42, "price": "{{variables.price}}", "colour": "red"}}"#,
                variables: #"{"price": "9.99"}"#),
            expected: [
                Expected(.contractMismatch, .inputNotInDefinition, "$.screens[0].instances[0].inputs.colour"),
                Expected(.contractMismatch, .bindingType, "$.screens[0].instances[0].inputs.price"),
                Expected(.contractMismatch, .bindingType, "$.screens[0].instances[0].inputs.title"),
            ]),
        Broken(
            why: "undeclared variables: bound, set, and read in an action; a payload field the event lacks",
            json: flow(
                components: [pickerV2],
                instance: #"""
                    {"id": "d", "component": "date_picker", "version": 2, "inputs": {"label": "Hi {{variables.name}}"},
                     "on": {"date_selected": [
                       {"action": "set_variable", "variable": "ghost", "value": "{{payload.day}}"},
                       {"action": "track", "event": "picked", "properties": {"who": "{{variables.user}}", "date": "{{payload.date}}"}}]}}
                    """#),
            expected: [
                Expected(.undeclaredVariable, .undeclaredVariable, "$.screens[0].instances[0].inputs.label"),
                Expected(.undeclaredVariable, .undeclaredVariable, "$.screens[0].instances[0].on.date_selected[0].variable"),
                Expected(.contractMismatch, .payloadFieldNotInDefinition, "$.screens[0].instances[0].on.date_selected[0].value"),
                Expected(.undeclaredVariable, .undeclaredVariable, "$.screens[0].instances[0].on.date_selected[1].properties.who"),
            ]),
        Broken(
            why: "a validator and a custom action no plugin registers, a param of the wrong type",
            json: flow(
                components: [paywall],
                instance: #"""
                    {"id": "p", "component": "paywall",
                     "on": {"purchase": [
                       {"action": "validate", "validator": "visa_only", "value": "{{payload.title}}"},
                       {"action": "refund"},
                       {"action": "format_currency", "params": {"currency": "USD", "variable": "t"}}]}}
                    """#,
                extra: #", "actions": [{"key": "refund"}, {"key": "format_currency", "params": {"amount": "string", "currency": "string", "variable": "string"}}]"#),
            expected: [
                Expected(.actionNotFound, "$.actions[0]"),
                Expected(.contractMismatch, .paramType, "$.actions[1].params.amount"),
                Expected(.validatorNotFound, "$.screens[0].instances[0].on.purchase[0].validator"),
            ]),
        Broken(
            why: "params: a validator given too few, too many, one that takes none, a literal of the wrong type; a custom action given an undeclared param and a literal of the wrong type",
            json: flow(
                components: [paywall],
                instance: #"""
                    {"id": "p", "component": "paywall",
                     "on": {"purchase": [
                       {"action": "validate", "validator": "length", "value": "{{payload.title}}", "params": ["3"]},
                       {"action": "validate", "validator": "range", "value": 5, "params": [1, 2, 3]},
                       {"action": "validate", "validator": "range", "value": 5, "params": ["low", "{{variables.max}}"]},
                       {"action": "validate", "validator": "luhn", "value": "4111", "params": ["x"]},
                       {"action": "validate", "validator": "length", "value": "ok", "params": [1, "8"]},
                       {"action": "format_currency", "params": {"amount": "five", "currency": "USD", "variable": "t", "colour": "red"}}]}}
                    """#,
                variables: #"{"max": 9, "t": ""}"#,
                extra: #", "actions": [{"key": "format_currency", "params": {"amount": "number", "currency": "string", "variable": "string"}}]"#),
            expected: [
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[0].params"),
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[1].params"),
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[2].params[0]"),
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[3].params"),
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[5].params.amount"),
                Expected(.invalidParam, "$.screens[0].instances[0].on.purchase[5].params.colour"),
            ]),
        Broken(
            why: "screens no go_to reaches",
            json: """
                {"components": [\(pickerV2)],
                 "screens": [
                   {"id": "start", "instances": [{"id": "d", "component": "date_picker", "version": 2, "inputs": {"label": "a", "min_date": "2026-01-01"},
                                                  "on": {"date_selected": [{"action": "go_to", "screen": "next"}]}}]},
                   {"id": "next"},
                   {"id": "orphan"},
                   {"id": "island", "instances": [{"id": "e", "component": "date_picker", "version": 2,
                                                   "on": {"date_selected": [{"action": "go_to", "screen": "start"}]}}]}]}
                """,
            expected: [
                Expected(.unreachableScreen, .unreachableScreen, "$.screens[2]"),
                Expected(.unreachableScreen, .unreachableScreen, "$.screens[3]"),
            ]),
    ]

    @Test("every mismatch is reported, at its path, and nothing else", arguments: broken)
    func brokenFlow(_ row: Broken) throws {
        let report = FlowChecker(host: try firstPartyHost()).check(try FlowDocument(json: row.json))
        #expect(!report.isClean)
        #expect(report.findings.map(Expected.init) == row.expected)
    }

    @Test("the example checkout flow agrees with the first-party plugins")
    func exampleIsClean() throws {
        let flow = try FlowDocument(contentsOf: repositoryFile("Examples/flows/checkout.json"))
        let report = FlowChecker(host: try firstPartyHost()).check(flow)
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
        #expect(report.json == ["ok": true, "findings": []])
    }

    @Test("findings say what the editor says and what the plugin says")
    func findingSides() throws {
        let version = try #require(Self.broken.first { $0.why.hasPrefix("a version") })
        let report = FlowChecker(host: try firstPartyHost()).check(try FlowDocument(json: version.json))
        let finding = try #require(report.findings.first)
        #expect(finding.editor == "3")
        #expect(finding.plugin == "1, 2", "the registered versions are listed")
        #expect(finding.message.contains("date_picker@3"))

        let inputs = try #require(Self.broken.first { $0.why.hasPrefix("input keys") })
        let typed = try #require(FlowChecker(host: try firstPartyHost()).check(try FlowDocument(json: inputs.json)).findings
            .first { $0.detail == .inputType })
        #expect(typed.editor == "number")
        #expect(typed.plugin == "string")
        #expect(typed.json["detail"] == "input_type")
        #expect(typed.json["path"] == "$.components[0].inputs.label")
    }

    @Test("one flow with many kinds of problem reports them all at once, in document order")
    func allAtOnce() throws {
        let json = """
            {"components": [
               {"key": "rating"},
               {"key": "date_picker", "version": 2, "inputs": {"label": "boolean", "min_date": "string"},
                "outputs": {"date_selected": {"payload": {"date": "string", "timestamp": "number"}}}}],
             "variables": {},
             "screens": [
               {"id": "start", "instances": [
                  {"id": "stars", "component": "rating"},
                  {"id": "date", "component": "date_picker", "version": 2, "inputs": {"label": "{{variables.label}}"}}]},
               {"id": "never"}]}
            """
        let report = FlowChecker(host: try firstPartyHost()).check(try FlowDocument(json: json))
        #expect(report.findings.map(Expected.init) == [
            Expected(.customComponentNotFound, "$.components[0]"),
            Expected(.contractMismatch, .inputType, "$.components[1].inputs.label"),
            Expected(.customComponentNotFound, "$.screens[0].instances[0].component"),
            Expected(.undeclaredVariable, .undeclaredVariable, "$.screens[0].instances[1].inputs.label"),
            Expected(.unreachableScreen, .unreachableScreen, "$.screens[1]"),
        ])
        #expect(report.json["ok"] == false)
        #expect(report.json["findings"]?.listValue?.count == 5)
    }

    @Test("with no plugins, every definition and instance is missing")
    func emptyRegistry() throws {
        let flow = try FlowDocument(contentsOf: repositoryFile("Examples/flows/checkout.json"))
        let report = FlowChecker(host: emptyHost()).check(flow)
        let codes = Set(report.findings.map(\.code))
        #expect(codes == [.customComponentNotFound, .actionNotFound, .validatorNotFound])
        #expect(report.findings.filter { $0.code == .customComponentNotFound }.count == 6, "3 definitions + 3 instances")
    }
}
