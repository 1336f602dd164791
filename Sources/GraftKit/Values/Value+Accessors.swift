extension Value {
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int` when it has no fractional part and fits.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded(.towardZero) == value,
              let exact = Int(exactly: value) else { return nil }
        return exact
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var listValue: [Value]? {
        if case .list(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: Value]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> Value? {
        objectValue?[key]
    }

    /// The type name used in warnings: "null", "boolean", "number", ...
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .list: "list"
        case .object: "object"
        }
    }
}

extension Value: CustomStringConvertible {
    /// Compact JSON text with sorted keys, as GraftKit writes `debug_config`.
    public var description: String { JSONText.encode(self) }
}
