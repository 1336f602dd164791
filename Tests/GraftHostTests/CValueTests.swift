import CGraft
import Testing

@testable import GraftHost

/// What a plugin receives from `withCValue` (inputs, interaction data, action
/// params, validator values), read back the way the host reads a plugin's
/// values: every node, string and key must survive, and objects reach the
/// plugin with their members in byte order of the keys.
@Suite("C values built in one block")
struct CValueTests {
    @Test("nested lists and objects, empty and non-ASCII strings, and an object large enough for the general sort, come back equal")
    func roundTrip() {
        var wide: [String: GraftValue] = [:]
        for index in 0..<40 { wide["k\(39 - index)"] = .number(Double(index)) }
        let value: GraftValue = .object([
            "text": "hello", "empty": "", "é": "ünïcödé ✓", "flag": true, "none": .null, "count": 2.5,
            "list": .list(["a", .list([]), .object([:]), .list([1, 2, .object(["z": "last", "a": "first"])])]),
            "wide": .object(wide),
        ])
        value.withCValue { pointer in
            #expect(GraftValue(copying: pointer) == value)
            #expect(keys(of: pointer.pointee) == keys(of: pointer.pointee).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            let wideMember = members(of: pointer.pointee).first { $0.key == "wide" }!
            #expect(keys(of: wideMember.value) == wide.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
    }

    @Test("a string value keeps its length and its terminating NUL")
    func stringLength() {
        GraftValue.string("abc").withCValue { pointer in
            let string = pointer.pointee.data.string
            #expect(string.length == 3)
            #expect(string.data?[3] == 0)
        }
    }

    private func members(of value: graft_value_t) -> [(key: String, value: graft_value_t)] {
        let object = value.data.object
        return (0..<Int(object.count)).map { (String(cString: object.members![$0].key!), object.members![$0].value) }
    }

    private func keys(of value: graft_value_t) -> [String] { members(of: value).map(\.key) }
}
