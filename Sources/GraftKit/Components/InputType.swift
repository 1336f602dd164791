import CGraft

/// The declared type of an input, a payload field or an action param.
///
/// Inputs may be `string`, `number`, `boolean` or `list`; payload fields and
/// action params may also be `object`.
public enum InputType: Sendable, Hashable {
    case string
    case number
    case boolean
    case list
    case object

    /// The `GRAFT_TYPE_*` tag.
    var tag: UInt32 {
        switch self {
        case .string: GRAFT_TYPE_STRING
        case .number: GRAFT_TYPE_NUMBER
        case .boolean: GRAFT_TYPE_BOOLEAN
        case .list: GRAFT_TYPE_LIST
        case .object: GRAFT_TYPE_OBJECT
        }
    }

    var name: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .boolean: "boolean"
        case .list: "list"
        case .object: "object"
        }
    }

    /// Whether `value` has this type.
    func matches(_ value: Value) -> Bool {
        switch (self, value) {
        case (.string, .string), (.number, .number), (.boolean, .bool),
             (.list, .list), (.object, .object):
            true
        default:
            false
        }
    }
}
