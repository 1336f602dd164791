import CGraft

/// Reads a C value the way a host would, into JSON-like text that keeps the
/// members in their C order (so tests also see the order GraftKit chose).
enum CValueText {
    static func json(_ value: UnsafePointer<graft_value_t>?) -> String? {
        value.map { text(of: $0.pointee) }
    }

    static func text(of value: graft_value_t) -> String {
        switch value.type {
        case GRAFT_TYPE_NULL: return "null"
        case GRAFT_TYPE_BOOLEAN: return value.data.boolean ? "true" : "false"
        case GRAFT_TYPE_NUMBER:
            let number = value.data.number
            return number == number.rounded() ? String(Int(number)) : String(number)
        case GRAFT_TYPE_STRING:
            let string = value.data.string
            let bytes = UnsafeRawBufferPointer(start: string.data, count: string.length)
            return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        case GRAFT_TYPE_LIST:
            let list = value.data.list
            return "[" + (0..<Int(list.count)).map { text(of: list.items[$0]) }.joined(separator: ",") + "]"
        case GRAFT_TYPE_OBJECT:
            let object = value.data.object
            return "{" + (0..<Int(object.count)).map {
                "\"\(String(cString: object.members[$0].key))\":\(text(of: object.members[$0].value))"
            }.joined(separator: ",") + "}"
        default:
            return "<tag \(value.type)>"
        }
    }
}
