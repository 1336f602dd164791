import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension GraftValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let list = try? container.decode([GraftValue].self) {
            self = .list(list)
        } else {
            self = .object(try container.decode([String: GraftValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .list(let l): try container.encode(l)
        case .object(let o): try container.encode(o)
        }
    }
}

extension GraftValue {
    /// Parses JSON text. Throws `invalid_json` with the parser's reason.
    public init(json text: String) throws(GraftError) {
        guard let value = JSONReader.value(text) else {
            // Where it stops being JSON, as a line and column.
            throw GraftError(.invalidJSON, "is not valid JSON: \(JSONSyntax.describeError(in: text))")
        }
        self = value
    }

    /// Compact JSON with sorted keys: stable output for logs, tests and `--json`.
    /// The same text `JSONEncoder` gives with `[.sortedKeys, .withoutEscapingSlashes]`,
    /// written directly: `graft list --json` spent a fifth of its run in the encoder.
    /// A number that JSON cannot carry (NaN, infinity) is written as `null`.
    public var jsonText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .number(let value): Self.appendJSON(value, to: &bytes)
        case .string(let value): Self.appendJSON(value, to: &bytes)
        case .list(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.appendJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            // Byte order of the UTF-8 keys, as JSONEncoder sorts them (not
            // String's `<`, which compares canonical forms).
            let sorted = members.sorted { Self.utf8Precedes($0.key, $1.key) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendJSON(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.appendJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func utf8Precedes(_ first: String, _ second: String) -> Bool {
        var first = first, second = second
        return first.withUTF8 { a in
            second.withUTF8 { b in
                let common = min(a.count, b.count)
                if common > 0, case let order = memcmp(a.baseAddress!, b.baseAddress!, common), order != 0 { return order < 0 }
                return a.count < b.count
            }
        }
    }

    private static func appendJSON(_ number: Double, to bytes: inout [UInt8]) {
        guard number.isFinite else {
            bytes += "null".utf8
            return
        }
        // As JSONEncoder: Swift's shortest round-trip form, without a trailing ".0".
        let written = number.description
        bytes += written.hasSuffix(".0") ? written.utf8.dropLast(2) : written.utf8[...]
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func appendJSON(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Native strings lend their bytes without the uniqueness check of `withUTF8`.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &bytes) }) == nil {
            var string = string
            string.withUTF8 { appendEscaped($0, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var plainStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default: bytes += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
            plainStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "\(context.debugDescription) (\($0))" } ?? context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context):
            return context.debugDescription
        default:
            return String(describing: error)
        }
    }
}

/// A value prints as its JSON text (`{"text":"hi"}`), not as the enum's cases.
extension GraftValue: CustomStringConvertible {
    public var description: String { jsonText }
}
