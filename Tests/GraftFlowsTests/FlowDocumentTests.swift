import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

@Suite("Flow documents")
struct FlowDocumentTests {
    @Test("the example checkout flow reads: definitions, actions, variables, screens, size")
    func readsExample() throws {
        let flow = try FlowDocument(contentsOf: repositoryFile("Examples/flows/checkout.json"))
        #expect(flow.components.map(\.reference.description) == ["date_picker@2", "date_picker@1", "paywall@1"])
        #expect(flow.components[0].input("min_date")?.type == .string)
        #expect(flow.components[0].output("date_selected")?.payload.map(\.key) == ["date", "timestamp"])
        #expect(flow.actions.map(\.reference.description) == ["format_currency@1"])
        #expect(flow.variables["offer_price"] == 9.99)
        #expect(flow.variables["delivery_date"] == .null)
        #expect(flow.screens.map(\.id) == ["pick_date", "paywall", "confirmation"])
        #expect(flow.size == ContainerSize(width: 56, height: 0))
        let offer = try #require(flow.screen("paywall")?.instances.first)
        #expect(offer.component == ComponentReference(key: "paywall", version: 1), "an omitted version is 1")
        #expect(offer.wiredEvents == ["dismiss", "purchase"])
        #expect(offer.inputs["price"] == "{{variables.offer_price}}", "bindings are kept as written")
    }

    /// One purpose-broken document per row: what is wrong, the code, and
    /// text the error must contain (the JSON path, or the line for syntax).
    struct Malformed: Sendable, CustomTestStringConvertible {
        var why: String
        var json: String
        var code: GraftError.Code
        var mentions: [String]
        var testDescription: String { why }
    }

    static let definitions = """
        "components": [{"key": "echo", "inputs": {"text": "string"}, "outputs": {"said": {"payload": {"text": "string"}}}}]
        """

    /// A document with one `echo` instance whose `said` event runs `actions`.
    static func wired(_ actions: String, screens extra: String = "") -> String {
        """
        {\(definitions),
         "variables": {"v": 1},
         "screens": [{"id": "a", "instances": [{"id": "x", "component": "echo", "on": {"said": \(actions)}}]}\(extra)]}
        """
    }

    static let malformed: [Malformed] = [
        Malformed(
            why: "a JSON syntax error names the line and column",
            json: "{\n  \"screens\": [\n    {\"id\": \"a\" \"instances\": []}\n  ]\n}", code: .invalidJSON,
            mentions: ["line 3, column 16"]),
        Malformed(why: "truncated JSON names where it stops", json: "{\"screens\": [\n  {\"id\": \"a\"", code: .invalidJSON, mentions: ["not valid JSON", "line 2, column 13"]),
        Malformed(why: "an empty flow says so, at line 1, column 1", json: "", code: .invalidJSON, mentions: ["line 1, column 1", "empty"]),
        Malformed(why: "a flow of white space is empty too", json: "  \n ", code: .invalidJSON, mentions: ["line 1, column 1", "only white space"]),
        Malformed(why: "the document is not an object", json: "[1, 2]", code: .invalidFlow, mentions: ["$: expected an object"]),
        Malformed(why: "no screens", json: "{\"screens\": []}", code: .invalidFlow, mentions: ["$.screens", "at least one screen"]),
        Malformed(why: "screens missing", json: "{\"variables\": {}}", code: .invalidFlow, mentions: ["missing required field \"screens\""]),
        Malformed(
            why: "a version written as a string",
            json: "{\(definitions), \"screens\": [{\"id\": \"a\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\", \"version\": \"2\"}]}]}",
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].version", "whole number", "a string (\"2\")"]),
        Malformed(
            why: "an input type that is not a type",
            json: "{\"components\": [{\"key\": \"echo\", \"inputs\": {\"text\": \"str\"}}], \"screens\": [{\"id\": \"a\"}]}",
            code: .invalidFlow, mentions: ["$.components[0].inputs.text", "unknown type \"str\""]),
        Malformed(
            why: "instances given as an object",
            json: "{\"screens\": [{\"id\": \"a\", \"instances\": {\"x\": 1}}]}", code: .invalidFlow,
            mentions: ["$.screens[0].instances", "expected a list"]),
        Malformed(
            why: "a misspelt field", json: wired("[{\"action\": \"go_to\", \"screne\": \"a\"}]"), code: .invalidFlow,
            mentions: ["$.screens[0].instances[0].on.said[0].screne", "unknown field"]),
        Malformed(
            why: "an unknown action", json: wired("[{\"action\": \"teleport\"}]"), code: .invalidFlow,
            mentions: ["$.screens[0].instances[0].on.said[0].action", "unknown action \"teleport\"", "$.actions"]),
        Malformed(
            why: "an action that is not an object", json: wired("[\"go_to\"]"), code: .invalidFlow,
            mentions: ["$.screens[0].instances[0].on.said[0]", "expected an action object"]),
        Malformed(
            why: "go_to a screen that does not exist", json: wired("[{\"action\": \"go_to\", \"screen\": \"payment\"}]"),
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].on.said[0].screen", "\"payment\"", "screens: a"]),
        Malformed(
            why: "go_to nested in on_invalid to a missing screen",
            json: wired("[{\"action\": \"validate\", \"validator\": \"luhn\", \"value\": \"1\", \"on_invalid\": [{\"action\": \"go_to\", \"screen\": \"nowhere\"}]}]"),
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].on.said[0].on_invalid[0].screen"]),
        Malformed(
            why: "an event wired that the definition does not declare",
            json: "{\(definitions), \"screens\": [{\"id\": \"a\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\", \"on\": {\"shout\": []}}]}]}",
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].on.shout", "echo@1 does not declare", "declared: said"]),
        Malformed(
            why: "an instance of a component the flow does not define",
            json: "{\(definitions), \"screens\": [{\"id\": \"a\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\", \"version\": 2}]}]}",
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].version", "echo@2", "defined: echo@1"]),
        Malformed(
            why: "the same instance id on two screens",
            json: "{\(definitions), \"screens\": [{\"id\": \"a\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\"}]}, {\"id\": \"b\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\"}]}]}",
            code: .invalidFlow, mentions: ["$.screens[1].instances[0].id", "used twice"]),
        Malformed(
            why: "two screens with one id", json: "{\"screens\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}", code: .invalidFlow,
            mentions: ["$.screens[1].id", "already used by $.screens[0]"]),
        Malformed(
            why: "a payload template in an input binding",
            json: "{\(definitions), \"screens\": [{\"id\": \"a\", \"instances\": [{\"id\": \"x\", \"component\": \"echo\", \"inputs\": {\"text\": \"{{payload.text}}\"}}]}]}",
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].inputs.text", "{{payload.text}}"]),
        Malformed(
            why: "a template with an unknown name",
            json: wired("[{\"action\": \"set_variable\", \"variable\": \"v\", \"value\": \"{{user.name}}\"}]"), code: .invalidFlow,
            mentions: ["$.screens[0].instances[0].on.said[0].value", "{{user.name}}"]),
        Malformed(
            why: "a template that is never closed",
            json: wired("[{\"action\": \"track\", \"event\": \"e\", \"properties\": {\"p\": \"{{payload.text\"}}]"),
            code: .invalidFlow, mentions: ["$.screens[0].instances[0].on.said[0].properties.p", "without closing"]),
        Malformed(
            why: "validate without a value",
            json: wired("[{\"action\": \"validate\", \"validator\": \"luhn\"}]"), code: .invalidFlow,
            mentions: ["$.screens[0].instances[0].on.said[0]", "\"value\""]),
        Malformed(
            why: "a custom action defined with a built-in's key",
            json: "{\"actions\": [{\"key\": \"close\"}], \"screens\": [{\"id\": \"a\"}]}", code: .invalidFlow,
            mentions: ["$.actions[0].key", "built-in"]),
        Malformed(
            why: "a component key with a version in it",
            json: "{\"components\": [{\"key\": \"echo@2\"}], \"screens\": [{\"id\": \"a\"}]}", code: .invalidFlow,
            mentions: ["$.components[0].key", "\"version\""]),
        Malformed(
            why: "a negative width", json: "{\"size\": {\"width\": -1}, \"screens\": [{\"id\": \"a\"}]}", code: .invalidFlow,
            mentions: ["$.size.width"]),
    ]

    @Test("a malformed flow is a clear error naming where, never a crash", arguments: malformed)
    func malformedFlow(_ row: Malformed) {
        #expect {
            _ = try FlowDocument(json: row.json)
        } throws: { error in
            guard let error = error as? GraftError else { return false }
            let named = row.mentions.allSatisfy { error.message.contains($0) }
            return error.code == row.code && named
        }
    }

    @Test("errors from a file name the file")
    func errorsNameTheFile() throws {
        let scratch = try Scratch()
        let file = scratch.file("broken.json")
        try Data(Self.wired("[{\"action\": \"teleport\"}]").utf8).write(to: file)
        let error = try #require(throws: GraftError.self) { try FlowDocument(contentsOf: file) }
        #expect(error.message.hasPrefix("broken.json: $.screens[0].instances[0].on.said[0].action"))
        #expect(error.path == file.path)

        let missing = try #require(throws: GraftError.self) { try FlowDocument(contentsOf: scratch.file("nope.json")) }
        #expect(missing.code == .invalidFlow)
        #expect(missing.message.contains("nope.json"))
    }

    @Test("keys that are not identifiers are quoted in paths")
    func quotedPathKeys() {
        let json = """
            {"components": [{"key": "echo", "outputs": {"said.loud": {}}}],
             "screens": [{"id": "a", "instances": [{"id": "x", "component": "echo", "on": {"said.loud": [{"action": "go_to", "screen": "b"}]}}]}]}
            """
        #expect {
            _ = try FlowDocument(json: json)
        } throws: { error in
            (error as? GraftError)?.message.hasPrefix(#"$.screens[0].instances[0].on["said.loud"][0].screen"#) == true
        }
    }

    @Test("events-file lines: both forms, and clear errors")
    func eventLines() throws {
        #expect(try FlowEvent(json: #"{"instance": "offer", "event": "purchase", "payload": {"price": 9.99}}"#)
            == .emit(instance: "offer", event: "purchase", payload: ["price": 9.99]))
        #expect(try FlowEvent(json: #"{"instance": "date", "interact": "select", "data": {"date": "2026-12-24"}}"#)
            == .interact(instance: "date", action: "select", data: ["date": "2026-12-24"]))
        #expect(try FlowEvent(json: #"{"instance": "x", "interact": "say"}"#) == .interact(instance: "x", action: "say", data: nil))

        let both = try #require(throws: GraftError.self) { try FlowEvent(json: #"{"instance": "x", "event": "a", "interact": "b"}"#) }
        #expect(both.message.contains("not both"))
        let neither = try #require(throws: GraftError.self) { try FlowEvent(json: #"{"instance": "x"}"#) }
        #expect(neither.message.contains("missing \"event\""))
        let typo = try #require(throws: GraftError.self) { try FlowEvent(json: #"{"instance": "x", "event": "a", "paylod": {}}"#) }
        #expect(typo.message.hasPrefix("$.paylod: unknown field"))
        let syntax = try #require(throws: GraftError.self) { try FlowEvent(json: #"{"instance": "x""#) }
        #expect(syntax.code == .invalidJSON)
    }
}
