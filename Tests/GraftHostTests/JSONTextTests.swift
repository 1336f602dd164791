import Foundation
import Testing

@testable import GraftHost

/// `GraftValue.jsonText` is written by hand for speed; it must stay the text
/// `JSONEncoder` writes (sorted keys, slashes unescaped), which logs, `--json`
/// output and the tests compare against.
@Suite struct JSONTextTests {
    static func encoderText(_ value: GraftValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }

    static let awkwardStrings = [
        "", "plain", "a/b", "quote \" and back\\slash", "\u{0}\u{1}\u{1f}\u{7f}", "\n\r\t\u{8}\u{c}", "\r\n",
        "é and e\u{301}", "\u{2028}\u{2029}", "😀 emoji", "ｅ wide", "10", "9", "A", "_", "a b",
    ]

    static let awkwardNumbers: [Double] = [
        0, -0.0, 1, -1, 1.5, 0.1, 1e15, 1e16, 1e20, 1e21, 1e-7, 2.5e-300, 12345.678, 123456789012345680,
        .greatestFiniteMagnitude, .leastNonzeroMagnitude, -.pi,
    ]

    @Test func scalarsAreWrittenAsJSONEncoderWritesThem() {
        for string in Self.awkwardStrings {
            #expect(GraftValue.string(string).jsonText == Self.encoderText(.string(string)), "\(string.debugDescription)")
        }
        for number in Self.awkwardNumbers {
            #expect(GraftValue.number(number).jsonText == Self.encoderText(.number(number)), "\(number)")
        }
        #expect(GraftValue.null.jsonText == "null")
        #expect(GraftValue.bool(true).jsonText == "true")
        #expect(GraftValue.list([]).jsonText == "[]")
        #expect(GraftValue.object([:]).jsonText == "{}")
    }

    @Test func keysAreSortedByTheirUTF8Bytes() {
        // NFD "e\u{301}" sorts before "f" by bytes; String's `<` compares the
        // canonical forms and would put it after.
        let keys = ["B", "e", "e\u{301}x", "e\u{302}", "f", "\u{C5}", "\u{E9}a", "10", "9", "_", "😀"]
        let value = GraftValue.object(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, .number(Double($0))) }))
        #expect(value.jsonText == Self.encoderText(value))
    }

    @Test func randomNestedValuesMatchTheEncoder() throws {
        var generator = SystemRandomNumberGenerator()
        func random(depth: Int) -> GraftValue {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2:
                return .number(Bool.random() ? Self.awkwardNumbers.randomElement()! : Double.random(in: -1e9...1e9, using: &generator))
            case 3: return .string(Self.awkwardStrings.randomElement()! + String(Int.random(in: 0..<100)))
            case 4: return .list((0..<Int.random(in: 0..<5)).map { _ in random(depth: depth + 1) })
            default:
                var members: [String: GraftValue] = [:]
                for _ in 0..<Int.random(in: 0..<6) { members[Self.awkwardStrings.randomElement()!] = random(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<500 {
            let value = random(depth: 0)
            let text = value.jsonText
            #expect(text == Self.encoderText(value))
            #expect(try GraftValue(json: text).jsonText == text)
        }
    }

    @Test func numbersJSONCannotCarryBecomeNull() {
        #expect(GraftValue.list([.number(.nan), .number(.infinity), .number(1)]).jsonText == "[null,null,1]")
    }

    @Test("JSON that does not parse names the line and column where it stops")
    func parseErrorsNameTheirPosition() {
        for (text, position) in [("{\"a\": 1,\n \"b\": }", "line 2, column 7"), ("{\"label\": ", "line 1, column 11"), ("", "line 1, column 1")] {
            let error = #expect(throws: GraftError.self) { try GraftValue(json: text) }
            #expect(error?.code == .invalidJSON)
            #expect(error?.message.contains(position) == true, "\(text.debugDescription): \(error?.message ?? "")")
        }
    }

    @Test("each kind of bad JSON says why, at the character where it stops")
    func parseErrorsSayWhy() {
        let cases: [(text: String, mentions: [String])] = [
            ("[1, x]", ["line 1, column 5", "unexpected 'x'"]),
            ("[1] 2", ["line 1, column 5", "unexpected '2'"]),
            ("{\"a\": \"b\u{1}\"}", ["line 1, column 9", "control character"]),
            ("[\"\\q\"]", ["line 1, column 3", "invalid escape"]),
            ("[\"\\ud800\"]", ["line 1, column 3", "invalid \\u escape"]),
            ("[1e999]", ["line 1, column 2", "number 1e999 is out of range"]),
            (String(repeating: "[", count: 600), ["line 1, column 513", "nested more than 512 deep"]),
            ("[\"é\", \u{1}]", ["line 1, column 7", "unexpected byte 0x1"]),
        ]
        for (text, mentions) in cases {
            let error = #expect(throws: GraftError.self) { try GraftValue(json: text) }
            for mention in mentions {
                #expect(error?.message.contains(mention) == true, "\(text.debugDescription): \(error?.message ?? "")")
            }
        }
    }

    @Test("a value prints as its JSON")
    func printsAsJSON() {
        let value: GraftValue = .object(["text": "hi", "n": 2])
        #expect("\(value)" == #"{"n":2,"text":"hi"}"#)
        #expect(String(describing: GraftValue.string("a/b")) == #""a/b""#)
    }

    /// `JSONWriter` writes reports without building values first; its text
    /// must be what the same value's `jsonText` is.
    @Test func theWriterWritesWhatTheValueWould() throws {
        // "e" twice: the first one stays, as the keys' order says.
        let keys = ["B", "e", "e\u{301}x", "\u{E9}a", "10", "9", "_", "😀", "e", "quote \" key"]
        var writer = JSONWriter()
        writer.object { writer in
            writer.member("count", -3)
            writer.member("flag", true)
            writer.member("gone", nil as String?)
            writer.key("list")
            writer.list(count: 3) { $0.number($1 * 10) }
            writer.key("members")
            writer.members(keys: keys) { $0.number($1) }
            writer.key("nested")
            writer.value(.object(["z": .null, "a": .list([.string("a/b")])]))
            writer.member("text", "tab\tquote \" é")
        }
        var members: [String: GraftValue] = [:]
        for (index, key) in keys.enumerated() where members[key] == nil { members[key] = .number(Double(index)) }
        let expected = GraftValue.object([
            "count": .number(-3), "flag": .bool(true), "list": .list([.number(0), .number(10), .number(20)]),
            "members": .object(members), "nested": .object(["z": .null, "a": .list([.string("a/b")])]),
            "text": .string("tab\tquote \" é"),
        ])
        #expect(writer.text == expected.jsonText)
        #expect(try GraftValue(json: writer.text) == expected)
        #expect(JSONWriter.text { $0.list(count: 0) { _, _ in } } == "[]")
        #expect(JSONWriter.text { $0.members(keys: []) { _, _ in } } == "{}")
    }
}

