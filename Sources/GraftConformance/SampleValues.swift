import GraftHost

/// Values the tests feed plugins.
enum SampleValues {
    /// Bytes that are not UTF-8: a lone continuation byte, an overlong
    /// encoding, a byte no UTF-8 text contains, a cut-off sequence.
    static let notUTF8: [UInt8] = [0x61, 0x80, 0xC0, 0xAF, 0xFF, 0xE2, 0x82]

    /// 16 MiB of text.
    static let huge = String(repeating: "a", count: 16 << 20)

    /// A value of `type` (for inputs, payloads and action params).
    static func value(of type: ValueType) -> GraftValue {
        switch type {
        case .null: .null
        case .boolean: .bool(true)
        case .number: .number(1)
        case .string: .string("a")
        case .list: .list([])
        case .object: .object([:])
        }
    }

    /// A value of another type than `type`: what a flow bound by mistake.
    static func wrongValue(for type: ValueType) -> GraftValue {
        switch type {
        case .string: .number(42)
        case .number: .string("not a number")
        case .boolean: .string("yes")
        case .list: .string("not a list")
        case .object, .null: .list([.number(1)])
        }
    }

    /// A param's text, as a flow gives validators their params.
    static func paramText(for type: ValueType) -> String {
        switch type {
        case .boolean: "true"
        case .number: "1"
        case .list: "[]"
        case .object: "{}"
        default: "a"
        }
    }
}
