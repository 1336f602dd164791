/// A value as it crosses between flows, the host and plugins: the Swift side
/// of graft.h's `graft_value_t`.
public enum GraftValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([GraftValue])
    case object([String: GraftValue])

    public var type: ValueType {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .number: .number
        case .string: .string
        case .list: .list
        case .object: .object
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var listValue: [GraftValue]? { if case .list(let l) = self { l } else { nil } }
    public var objectValue: [String: GraftValue]? { if case .object(let o) = self { o } else { nil } }

    public subscript(key: String) -> GraftValue? { objectValue?[key] }
}

/// The declared type of an input, a payload field or a param.
public enum ValueType: String, Sendable, Hashable, Codable, CaseIterable {
    case null, boolean, number, string, list, object

    /// Whether a value of this type satisfies the declaration.
    func accepts(_ value: GraftValue) -> Bool { value.type == self }
}

extension GraftValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: GraftValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, GraftValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
