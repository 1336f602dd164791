import Foundation

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
        do {
            self = try JSONDecoder().decode(GraftValue.self, from: Data(text.utf8))
        } catch {
            throw GraftError(.invalidJSON, "is not valid JSON: \(Self.describe(error))")
        }
    }

    /// Compact JSON with sorted keys: stable output for logs, tests and `--json`.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context):
            return context.debugDescription
        default:
            return String(describing: error)
        }
    }
}
