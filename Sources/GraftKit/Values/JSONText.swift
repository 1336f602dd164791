/// A small JSON encoder for ``Value``: compact, keys sorted, integral numbers
/// without ".0", non-finite numbers as `null`. Deterministic, so descriptors
/// are byte-for-byte the same on every load.
enum JSONText {
    static func encode(_ value: Value) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: Value, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += numberText(number)
        case .string(let text): writeString(text, to: &out)
        case .list(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(members[key]!, to: &out)
            }
            out += "}"
        }
    }

    static func numberText(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        // Integral values that a Double holds exactly print as integers.
        if number.rounded(.towardZero) == number, abs(number) < 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        return number.description  // shortest round-trip form, valid JSON ("1e+300")
    }

    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
