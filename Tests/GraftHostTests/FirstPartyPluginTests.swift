import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// The first-party plugins as `swift build` produced them, loaded through the
/// host API: the Swift DatePicker (GraftKit), the SwiftPM C Checkout plugin,
/// and the third-party example built with plain cc.
@Suite("First-party plugins, end to end")
struct FirstPartyPluginTests {
    static func host() throws -> GraftHost {
        let host = inProcessHost()
        try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
        return host
    }

    struct ValidatorVector: Decodable, Sendable, CustomTestStringConvertible {
        var validator: String
        var value: GraftValue?
        var params: [String]
        var valid: Bool
        var note: String?
        var message_contains: String?
        var testDescription: String { "\(validator)(\((value ?? .null).jsonText.prefix(30))) = \(valid)" }
    }

    struct ActionVector: Decodable, Sendable, CustomTestStringConvertible {
        var action: String
        var params: [String: GraftValue]
        var payload: GraftValue?
        var ok: Bool
        var variables: [String: GraftValue]?
        var result: GraftValue?
        var error_contains: String?
        var testDescription: String { "\(action)(\(GraftValue.object(params).jsonText)) ok=\(ok)" }
    }

    static let validatorVectors: [ValidatorVector] = load("validator-vectors.json")
    static let actionVectors: [ActionVector] = load("action-vectors.json")

    static func load<T: Decodable>(_ name: String) -> [T] {
        let url = Fixtures.root.appendingPathComponent("Tests/Fixtures/\(name)")
        guard let data = try? Data(contentsOf: url), let rows = try? JSONDecoder().decode([T].self, from: data) else { return [] }
        return rows
    }

    @Test("the vector files are present and parse")
    func vectorsLoad() {
        #expect(Self.validatorVectors.count >= 48)
        #expect(Self.actionVectors.count >= 10)
    }

    @Test("validator vectors: the fast path and libffi give the known answers", arguments: validatorVectors)
    func validatorVector(_ vector: ValidatorVector) throws {
        let host = try Self.host()
        for path in [NativeCallPath.automatic, .libffi] {
            let result = try host.validate(vector.validator, value: vector.value ?? .null, params: vector.params, path: path)
            #expect(result.isValid == vector.valid, "\(vector.note ?? "") via \(path)")
            if !result.isValid { #expect(result.message?.isEmpty == false) }
            if let fragment = vector.message_contains {
                #expect(result.message?.contains(fragment) == true, "\(result.message ?? "nil")")
            }
        }
    }

    @Test("action vectors: variables set, results recorded, failures explained", arguments: actionVectors)
    func actionVector(_ vector: ActionVector) throws {
        let host = try Self.host()
        let result = try host.invokeAction(vector.action, params: vector.params, payload: vector.payload)
        #expect(result.ok == vector.ok, "\(result.error ?? "")")
        if let variables = vector.variables { #expect(result.variables == variables) }
        if case .object = vector.result { #expect(result.result == vector.result) }
        if let fragment = vector.error_contains { #expect(result.error?.contains(fragment) == true, "\(result.error ?? "nil")") }
    }

    @Test("date_picker: bare key is version 1, @2 adds min_date; select emits date_selected")
    func datePicker() throws {
        let host = try Self.host()
        #expect(try host.resolve(ComponentReference(parsing: "date_picker")).contract.inputs.map(\.key) == ["label"])
        let v2 = try host.resolve(ComponentReference(parsing: "date_picker@2"))
        #expect(Set(v2.contract.inputs.map(\.key)) == ["label", "min_date"])
        #expect(v2.pluginID == "dev.graft.date-picker")

        let log = EventLog()
        let picker = try host.makeInstance(
            of: v2.reference, id: "checkout.date", inputs: v2.contract.debugConfig, onEvent: log.handler)
        #expect(try picker.render().text.contains("Pick a date"))
        #expect(picker.interact("select", data: ["date": "2026-12-24"]))
        #expect(log.all.map(\.event) == ["date_selected"])
        #expect(log.all.first?.payload == ["date": "2026-12-24", "timestamp": 1_798_070_400])
        #expect(log.all.first?.warnings.isEmpty == true)
        #expect(try picker.render().text.contains("2026-12-24"))
        let html = try picker.render(as: .html)
        #expect(html.mediaType == .html)
        #expect(html.text.contains("min=\"2026-01-01\""))
    }

    @Test("date_picker refuses select with a date it cannot use: the instance says so, nothing is emitted", arguments: [
        GraftValue.object(["date": ""]), ["date": "2026-02-30"], ["date": "2025-12-31"], ["day": "2026-12-24"],
    ])
    func datePickerRefusesUnusableDates(data: GraftValue) throws {
        let host = try Self.host()
        let log = EventLog()
        let picker = try host.makeInstance(of: "date_picker@2", inputs: ["label": "Pick a date", "min_date": "2026-01-01"], onEvent: log.handler)
        #expect(!picker.interact("select", data: data))
        #expect(picker.warnings.map(\.code) == [.interactionRefused])
        #expect(log.all.isEmpty)
        #expect(try picker.render().text.contains("____-__-__"))
    }

    @Test("paywall: renders its inputs, purchase emits the declared payload")
    func paywall() throws {
        let host = try Self.host()
        let log = EventLog()
        let paywall = try host.makeInstance(
            of: ComponentReference(key: "paywall"), inputs: ["title": "Pro", "price": 4.5, "features": ["A", "B"]],
            containerSize: ContainerSize(width: 30, height: 0), onEvent: log.handler)
        let text = try paywall.render().text
        #expect(text.contains("Pro") && text.contains("4.50") && text.contains("• A"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 30 }, "respects the container width")
        #expect(paywall.interact("purchase"))
        #expect(log.all.first?.payload == ["title": "Pro", "price": 4.5])
        #expect(log.all.first?.warnings.isEmpty == true)
    }

    @Test("a Swift plugin is marked never-unload; a SwiftPM C plugin links the Swift runtime and is too")
    func unloadability() throws {
        let host = try Self.host()
        #expect(host.plugins.allSatisfy { !$0.canUnload })
    }
}

/// What flows and editors get wrong, against the real validators: a clear
/// answer or error every time, never a crash.
@Suite("Validators, bad input")
struct ValidatorBadInputTests {
    let host: GraftHost

    init() throws {
        host = inProcessHost()
        try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
    }

    @Test("a value with a NUL byte is invalid, on both call paths, and says why", arguments: [NativeCallPath.automatic, .libffi])
    func nulByte(path: NativeCallPath) throws {
        let result = try host.validate("luhn", value: "4111\u{0}111111111111", path: path)
        #expect(!result.isValid)
        #expect(result.message?.contains("NUL") == true)
        // A generic validator gets the length, so it sees the byte too.
        #expect(try !host.validate("regex", value: "a\u{0}b", params: ["^a$"]).isValid)
    }

    @Test("a 1 MiB value is answered, not crashed on")
    func hugeValue() throws {
        let huge = String(repeating: "4", count: 1 << 20)
        #expect(try !host.validate("luhn", value: .string(huge)).isValid)
        #expect(try !host.validate("luhn", value: .string(huge), path: .libffi).isValid)
        #expect(try !host.validate("email", value: .string(huge)).isValid)
        #expect(try host.validate("length", value: .string(huge), params: ["0", "2000000"]).isValid)
        #expect(try host.validate("regex", value: .string(huge), params: ["^4+$"]).isValid)
    }

    @Test("params of the wrong count or that do not convert are invalid_param naming the validator, position and text")
    func badParams() throws {
        let count = #expect(throws: GraftError.self) { try host.validate("length", value: "abc", params: ["1"]) }
        #expect(count?.code == .invalidParam)
        #expect(count?.message.contains("'length'") == true)
        let text = #expect(throws: GraftError.self) { try host.validate("range", value: "5", params: ["0", "ten"]) }
        #expect(text?.code == .invalidParam)
        #expect(text?.message.contains("param 2") == true && text?.message.contains("'ten'") == true)
        let ffi = #expect(throws: GraftError.self) { try host.validate("range", value: "5", params: ["zero", "10"], path: .libffi) }
        #expect(ffi?.message.contains("param 1") == true)
    }

    @Test("an invalid regex pattern is an answer that names the pattern's problem")
    func invalidPattern() throws {
        let result = try host.validate("regex", value: "abc", params: ["(unclosed"])
        #expect(!result.isValid)
        #expect(result.message?.contains("invalid pattern") == true)
    }

    @Test("validators answer the same from many threads at once (the regex cache included)")
    func concurrentCalls() throws {
        let host = self.host
        let failures = Locked(0)
        let group = DispatchGroup()
        for thread in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for round in 0..<500 {
                    let pattern = "^a{\((round + thread) % 40)}$"  // 40 patterns: more than the plugin caches
                    let text = String(repeating: "a", count: (round + thread) % 40)
                    let answers = [
                        (try? host.validate("luhn", value: "4111 1111 1111 1111"))?.isValid == true,
                        (try? host.validate("luhn", value: "4111 1111 1111 1112", path: .libffi))?.isValid == false,
                        (try? host.validate("regex", value: .string(text), params: [pattern]))?.isValid == true,
                        (try? host.validate("length", value: "abc", params: ["1", "5"]))?.isValid == true,
                    ]
                    if answers.contains(false) { failures.withLock { $0 += 1 } }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == 0)
    }

    @Test("a value the function cannot take is invalid, not an error")
    func unreadableValue() throws {
        #expect(try !host.validate("range", value: "not a number", params: ["0", "10"]).isValid)
        #expect(try !host.validate("luhn", value: ["a", "list"]).isValid)
    }
}
