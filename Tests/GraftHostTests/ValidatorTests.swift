import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

@Suite("Validators and actions from a C fixture")
struct ValidatorTests {
    @Test("generic validator with its own and the descriptor's message")
    func generic() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        #expect(try host.validate("nonempty", value: "x").isValid)
        #expect(try host.validate("nonempty", value: "").message == "must not be empty")
        #expect(try host.validate("nonempty", value: 3).message == "expected a string")
    }

    @Test("native validator through libffi", arguments: [NativeCallPath.automatic, .libffi])
    func native(path: NativeCallPath) throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        #expect(try host.validate("is_even", value: "42", path: path).isValid)
        #expect(try host.validate("is_even", value: 7, path: path).message == "must be even")
        #expect(try host.validate("is_even", value: "seven", path: path).isValid == false)
        // Every spelling of version 1 reaches the same validator.
        #expect(try host.validate("is_even@1", value: 4, path: path).isValid)
        #expect(try host.validate("is_even@01", value: 4, path: path).isValid)
        let versionTwo = #expect(throws: GraftError.self) { try host.validate("is_even@2", value: 4, path: path) }
        #expect(versionTwo?.code == .validatorNotFound)
        let error = #expect(throws: GraftError.self) { try host.validate("is_even", value: 2, params: ["extra"]) }
        #expect(error?.code == .invalidParam)
        let missing = #expect(throws: GraftError.self) { try host.validate("nope", value: 2) }
        #expect(missing?.code == .validatorNotFound)
    }

    @Test("signatures parse, or are refused with invalid_signature", arguments: [
        ("bool(string)", true), ("int32(string, int64, int64)", true), ("bool(double,double,double)", true),
        ("bool(strng)", false), ("bool(string", false), ("void(string)", false), ("bool()", false),
        ("bool(" + Array(repeating: "int32", count: 17).joined(separator: ",") + ")", false),
    ])
    func signatures(text: String, valid: Bool) {
        #expect(((try? NativeSignature(parsing: text)) != nil) == valid)
    }

    @Test("custom action sets variables, or fails with a reason")
    func action() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let result = try host.invokeAction("echo_action", params: ["text": "hi"])
        #expect(result.ok)
        #expect(result.variables == ["echoed": "hi"])
        let failed = try host.invokeAction("echo_action", params: [:])
        #expect(!failed.ok)
        #expect(failed.error?.isEmpty == false)
        #expect(failed.variables.isEmpty)
        let missing = #expect(throws: GraftError.self) { try host.invokeAction("nope") }
        #expect(missing?.code == .actionNotFound)
    }
}
