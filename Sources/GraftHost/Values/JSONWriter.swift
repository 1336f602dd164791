/// JSON text written straight into bytes, members in the order they are
/// written: for reports large enough that building `GraftValue` objects
/// first (a hashed dictionary each, sorted again when written) costs more
/// than the writing. `graft list --json` of 200 plugins spent an eighth of
/// its run that way.
///
/// The text matches `GraftValue.jsonText` when the caller writes each
/// object's members in byte order of their keys, as `members(_:key:_:)`
/// does for keys only known at run time.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the object being written has no member yet.
    private var atFirstMember = true

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text of whatever `body` writes.
    package static func text(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return writer.text
    }

    // MARK: Values

    package mutating func string(_ value: String) { GraftValue.appendJSON(value, to: &bytes) }

    mutating func number(_ value: Int) { bytes += String(value).utf8 }

    mutating func bool(_ value: Bool) { bytes += (value ? "true" : "false").utf8 }

    package mutating func value(_ value: GraftValue) { value.appendJSON(to: &bytes) }

    /// `{…}` holding what `body` writes with `key(_:)` and a value each.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        let outer = atFirstMember
        atFirstMember = true
        bytes.append(UInt8(ascii: "{"))
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        atFirstMember = outer
    }

    /// `[…]` with `count` elements, element `i` written by `element(&writer, i)`.
    /// (By index, not generic over a sequence: called from other modules, a
    /// generic method runs unspecialized, through run-time metadata.)
    package mutating func list(count: Int, _ element: (inout JSONWriter, Int) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, index)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An object with a member per key, in byte order of the keys as
    /// `GraftValue.jsonText` writes them; member `i`'s value (its index in
    /// `keys`) is written by `value(&writer, i)`. Of equal keys, the first.
    package mutating func members(keys: [String], _ value: (inout JSONWriter, Int) -> Void) {
        var order = Array(keys.indices)
        if keys.count > 1 {
            order.sort { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }  // stable: equal keys keep their order
        }
        object { writer in
            for (position, index) in order.enumerated() where position == 0 || !keys[order[position - 1]].utf8.elementsEqual(keys[index].utf8) {
                writer.key(keys[index])
                value(&writer, index)
            }
        }
    }

    // MARK: Members

    /// Starts a member of the object being written; its value comes next.
    package mutating func key(_ key: String) {
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
        GraftValue.appendJSON(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    package mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    package mutating func member(_ key: String, _ value: String?) {
        guard let value else { return }
        member(key, value)
    }

    package mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        number(value)
    }

    package mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        bool(value)
    }
}
