import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// `GraftValue(json:)` reads JSON by hand for speed (`JSONReader`); it must
/// accept exactly the texts `JSONDecoder` accepts, with the same values, so
/// that no debugConfig, flow or param means something else than it did.
@Suite struct JSONReaderTests {
    /// What JSONDecoder makes of `text`, or nil when it refuses it.
    static func decoderValue(_ text: String) -> GraftValue? {
        try? JSONDecoder().decode(GraftValue.self, from: Data(text.utf8))
    }

    static func readerValue(_ text: String) -> GraftValue? {
        try? GraftValue(json: text)
    }

    static let accepted = [
        "0", "-0", "1", "-1", "1.5", "1.5e3", "1E-2", "1e+2", "0.000001", "123456789012345678901234567890", "1e308",
        "4.9e-324", "0e-400", "0.0e-400", "-1.25E+10", "true", "false", "null", "\"\"", "\"plain\"", "\"a\\/b\"",
        "\"\\\" \\\\ \\b \\f \\n \\r \\t\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\ud83d\\ude00\"", "\"\\u0000\"", "\"é 😀\"",
        "[]", "{}", " [ 1 , 2 ] ", "\t\n\r {\"a\" : [ {\"b\": null} ] }\n", "{\"a\":1,\"a\":2}",
        "{\"text\":\"hi\",\"count\":3,\"on\":true,\"tags\":[\"x\",\"y\"]}", "[[[[[]]]]]", "{\"\":{}}", "\"\u{7f}\"",
        "[1,]", "{\"a\":1,}", "[1, ]", "\u{feff}1", "\u{feff}{}",
    ]

    static let refused = [
        "", " ", "01", "-", "-01", "1.", ".5", "+1", "1e", "1e+", "0x10", "{a:1}", "'x'",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\x\"", "\"tab\there\"", "\"line\nbreak\"", "nul", "tru",
        "[", "]", "{", "1 2", "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e-400", "0.1e-400", "\"\\u12G4\"", "\"\\u12\"", "[1]]",
        "{\"a\"}", "{\"a\":}", "{,}", "[,]", "\"unterminated", "true false", "{\"a\":1 \"b\":2}", "\u{a0}1", "[1,,]", "{\"a\":1,,}",
    ]

    @Test func acceptsWhatJSONDecoderAccepts() {
        for text in Self.accepted {
            let expected = Self.decoderValue(text)
            #expect(expected != nil, "JSONDecoder refuses \(text.debugDescription): fix the corpus")
            #expect(Self.readerValue(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func refusesWhatJSONDecoderRefuses() {
        for text in Self.refused {
            #expect(Self.decoderValue(text) == nil, "JSONDecoder accepts \(text.debugDescription): fix the corpus")
            #expect(throws: GraftError.self, "\(text.debugDescription)") { try GraftValue(json: text) }
        }
    }

    @Test func nestingStopsWhereJSONDecoderStops() {
        for depth in [511, 512, 513, 600] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            #expect((Self.readerValue(text) != nil) == (Self.decoderValue(text) != nil), "depth \(depth)")
        }
    }

    /// Random texts from JSON's own pieces, valid and not: both readers agree
    /// on every one (same seed each run, so a failure repeats).
    @Test func agreesWithJSONDecoderOnRandomTexts() {
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"a\"", "\"b\\n\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "1",
            "-2.5e3", "0", "01", "true", "null", "fals", "\"", "\\", "1.", "e5", "\n", ",]", ",}",
        ]
        var generator = SeededGenerator(seed: 0x6772_6166_74)
        var agreed = 0
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...12, using: &generator)
            let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let expected = Self.decoderValue(text)
            #expect(Self.readerValue(text) == expected, "\(text.debugDescription)")
            if expected != nil { agreed += 1 }
        }
        // The corpus must exercise both sides.
        #expect(agreed > 100)
    }
}
