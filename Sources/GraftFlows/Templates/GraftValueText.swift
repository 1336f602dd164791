import GraftHost

/// How values read in messages and in interpolated text.
enum GraftValueText {
    /// The text a value contributes to an interpolated string: strings as
    /// they are, whole numbers without a fraction, null as nothing, lists and
    /// objects as compact JSON.
    static func interpolated(_ value: GraftValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number, .list, .object: value.jsonText
        }
    }

    /// `"text"` with JSON escapes, for messages and paths.
    static func quoted(_ text: String) -> String {
        GraftValue.string(text).jsonText
    }

    /// "a string (\"2\")", "a number (2)", "an object": what was found, for errors.
    static func describe(_ value: GraftValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "a boolean (\(flag))"
        case .number: "a number (\(value.jsonText))"
        case .string(let text): "a string (\(quoted(text.count > 40 ? String(text.prefix(40)) + "…" : text)))"
        case .list: "a list"
        case .object: "an object"
        }
    }
}
