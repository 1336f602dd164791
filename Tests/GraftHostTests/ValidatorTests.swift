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
        #expect(try host.validate("nonempty", value: "x").pluginID == "test.echo", "the outcome names the plugin that answered")
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

    @Test("signatures without a fast path: several strings, strings after scalars, int32 and bool", arguments: [
        NativeCallPath.automatic, .libffi,
    ])
    func generalMarshalling(path: NativeCallPath) throws {
        let scratch = try Scratch()
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: Fixtures.build("good_signatures", into: scratch.url).path)

        #expect(try host.validate("sig_prefix", value: "graft-1", params: ["graft"], path: path).isValid)
        #expect(try host.validate("sig_prefix", value: "craft-1", params: ["graft"], path: path).message == "has the wrong prefix")
        // A number value is read as its text; an int32 return of 0 means invalid.
        #expect(try host.validate("sig_prefix", value: 42, params: ["4"], path: path).isValid)

        #expect(try host.validate("sig_concat", value: "ab-cd", params: ["ab-", "cd"], path: path).isValid)
        #expect(try host.validate("sig_concat", value: "ab-cd", params: ["ab", "cd"], path: path).isValid == false)
        #expect(try host.validate("sig_concat", value: "", params: ["", ""], path: path).isValid)

        // int32 value, then a string, a bool and a double from params.
        #expect(try host.validate("sig_mixed", value: 3, params: ["abc", "true", "5"], path: path).isValid)
        #expect(try host.validate("sig_mixed", value: "3", params: ["abc", "yes", "2.5"], path: path).isValid == false)
        #expect(try host.validate("sig_mixed", value: 3, params: ["abc", "false", "2.5"], path: path).isValid)
        #expect(try host.validate("sig_mixed", value: 4, params: ["abc", "0", "9"], path: path).isValid == false)
        // A value that does not fit int32 is invalid, not an error.
        #expect(try host.validate("sig_mixed", value: 3_000_000_000, params: ["abc", "0", "9"], path: path).isValid == false)

        // Params that do not convert, or carry a NUL, name their position.
        for (params, position) in [(["abc", "maybe", "5"], 2), (["abc", "true", "five"], 3), (["a\u{0}c", "true", "5"], 1)] {
            let error = #expect(throws: GraftError.self) { try host.validate("sig_mixed", value: 3, params: params, path: path) }
            #expect(error?.code == .invalidParam)
            #expect(error?.message.contains("param \(position)") == true, "\(error?.message ?? "")")
        }
        let count = #expect(throws: GraftError.self) { try host.validate("sig_concat", value: "x", params: ["x"], path: path) }
        #expect(count?.code == .invalidParam)
    }
}
