import CGraft
@testable import GraftKit
import Testing

@Suite("Values")
struct ValueTests {
    @Test("JSON text is compact, key-sorted, with integral numbers printed as integers",
          arguments: [
              (["b": 1, "a": [true, nil, 2.5]], #"{"a":[true,null,2.5],"b":1}"#),
              (.number(-0.0), "0"),
              (.number(1e21), "1e+21"),
              (.number(0.1), "0.1"),
              (.number(-42), "-42"),
              (.number(.nan), "null"),
              (.number(.infinity), "null"),
              (.string("q\"\\/\n\r\t\u{8}\u{c}\u{1f}é😀"), #""q\"\\/\n\r\t\b\f\u001fé😀""#),
              (["nested": ["x": [:]]], #"{"nested":{"x":{}}}"#),
          ] as [(Value, String)])
    func jsonText(value: Value, json: String) {
        #expect(value.description == json)
    }

    @Test("accessors answer only for their own type")
    func accessors() {
        let value: Value = ["s": "text", "n": 3.0, "f": 3.5, "b": true, "l": [1], "big": 1e300]
        #expect(value["s"]?.stringValue == "text" && value["s"]?.numberValue == nil)
        #expect(value["n"]?.intValue == 3 && value["f"]?.intValue == nil && value["big"]?.intValue == nil)
        #expect(value["b"]?.boolValue == true && value["l"]?.listValue == [1])
        #expect(value["missing"] == nil && Value.null.isNull && value.objectValue?.count == 6)
        #expect(Value.string("x")["key"] == nil)
    }

    @Test("a value survives the trip to C and back")
    func roundTrip() {
        let value: Value = ["list": [1, "two", nil, ["deep": [false]]], "text": "é\u{0}x", "n": -1.5]
        let back = CValueArena.with(value) { Value.copying($0) }
        #expect(back == value)
    }

    @Test("non-finite numbers leave as null")
    func nonFinite() {
        let back = CValueArena.with(["x": .number(.infinity)]) { Value.copying($0) }
        #expect(back == ["x": nil])
    }

    @Test("a host value with an unknown tag, a NULL key or invalid UTF-8 still reads")
    func oddHostValues() {
        let tree = CTree()
        var unknown = graft_null()
        unknown.type = 99
        let members = tree.allocate([
            graft_member_t(key: nil, value: graft_number(1)),
            graft_member_t(key: tree.cString("odd"), value: unknown),
            graft_member_t(key: tree.cString("bytes"), value: tree.bytes([0x61, 0xFF])),
            graft_member_t(key: tree.cString("empty"), value: graft_list(nil, 0)),
        ])
        let value = Value.copying(tree.pointer(to: graft_object(members, 4)))
        #expect(value == ["odd": nil, "bytes": "a\u{FFFD}", "empty": []])
    }

    @Test("nesting deeper than the limit reads as null instead of exhausting the stack")
    func depthLimit() {
        var value: Value = "leaf"
        for _ in 0..<(Value.maxDepth + 5) { value = [value] }
        let back = CValueArena.with(value) { Value.copying($0) }
        var depth = 0
        var cursor = back
        while let items = cursor?.listValue { cursor = items.first; depth += 1 }
        #expect(depth == Value.maxDepth && cursor == .null)
    }
}
