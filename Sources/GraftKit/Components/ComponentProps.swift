/// The resolved inputs of one component instance.
///
/// Every typed read checks the key against the definition's declared inputs
/// and the value's type. When it cannot answer, it returns `nil` (or the
/// default) and records a contract warning with the host:
/// - `unknown_input`: the definition does not declare the key;
/// - `input_missing`: the flow bound nothing (or `null`) to the key;
/// - `input_type_mismatch`: the value has another type.
public struct ComponentProps: Sendable {
    /// The inputs as the host passed them, copied. Reading them here records no warning.
    public let values: [String: Value]
    let declared: [String: InputType]
    let context: ComponentContext

    init(values: [String: Value], declared: [String: InputType], context: ComponentContext) {
        self.values = values
        self.declared = declared
        self.context = context
    }

    /// Whether the flow bound a non-null value to `key`. Records no warning.
    public func contains(_ key: String) -> Bool {
        values[key].map { !$0.isNull } ?? false
    }

    public func string(_ key: String) -> String? {
        read(key, expected: "a string") { $0.stringValue }
    }

    public func string(_ key: String, default fallback: String) -> String {
        string(key) ?? fallback
    }

    public func number(_ key: String) -> Double? {
        read(key, expected: "a number") { $0.numberValue }
    }

    public func number(_ key: String, default fallback: Double) -> Double {
        number(key) ?? fallback
    }

    /// A number with no fractional part.
    public func int(_ key: String) -> Int? {
        read(key, expected: "an integer (a number with no fractional part)") { $0.intValue }
    }

    public func int(_ key: String, default fallback: Int) -> Int {
        int(key) ?? fallback
    }

    public func bool(_ key: String) -> Bool? {
        read(key, expected: "a boolean") { $0.boolValue }
    }

    public func bool(_ key: String, default fallback: Bool) -> Bool {
        bool(key) ?? fallback
    }

    public func list(_ key: String) -> [Value]? {
        read(key, expected: "a list") { $0.listValue }
    }

    public func list(_ key: String, default fallback: [Value]) -> [Value] {
        list(key) ?? fallback
    }

    private func read<T>(_ key: String, expected: String, _ extract: (Value) -> T?) -> T? {
        guard declared[key] != nil else {
            let known = declared.keys.sorted().joined(separator: ", ")
            context.warn(code: "unknown_input", message:
                "The component read input \"\(key)\", which its definition does not declare "
                + "(declared: \(known.isEmpty ? "none" : known)).")
            return nil
        }
        guard let value = values[key], !value.isNull else {
            let what = values[key] == nil ? "is missing" : "is null"
            context.warn(code: "input_missing", message:
                "Input \"\(key)\" \(what); expected \(expected). The default was used.")
            return nil
        }
        guard let result = extract(value) else {
            let actual = value.numberValue.map { "the number \(JSONText.numberText($0))" }
                ?? value.typeName
            context.warn(code: "input_type_mismatch", message:
                "Input \"\(key)\" expected \(expected) but got \(actual). The default was used.")
            return nil
        }
        return result
    }
}
