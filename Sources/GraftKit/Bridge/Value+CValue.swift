import CGraft

extension Value {
    /// Nesting deeper than this reads as `null`, so a hostile tree cannot
    /// exhaust the stack.
    static let maxDepth = 128

    /// Copies a host-owned value; `nil` when the pointer is NULL.
    static func copying(_ pointer: UnsafePointer<graft_value_t>?) -> Value? {
        pointer.map { Value(copying: $0.pointee, depth: 0) }
    }

    /// Copies a host-owned object; `nil` when NULL or not an object.
    static func copyingObject(_ pointer: UnsafePointer<graft_value_t>?) -> [String: Value]? {
        copying(pointer)?.objectValue
    }

    /// Unknown type tags read as `null`; invalid UTF-8 is repaired (U+FFFD);
    /// of repeated object keys the last wins; members with a NULL key are skipped.
    init(copying value: graft_value_t, depth: Int) {
        guard depth < Self.maxDepth else { self = .null; return }
        switch value.type {
        case GRAFT_TYPE_BOOLEAN:
            self = .bool(value.data.boolean)
        case GRAFT_TYPE_NUMBER:
            self = .number(value.data.number)
        case GRAFT_TYPE_STRING:
            self = .string(Self.string(value.data.string))
        case GRAFT_TYPE_LIST:
            let list = value.data.list
            guard let items = list.items else { self = .list([]); return }
            self = .list((0..<Int(list.count)).map { Value(copying: items[$0], depth: depth + 1) })
        case GRAFT_TYPE_OBJECT:
            let object = value.data.object
            var members: [String: Value] = [:]
            if let pairs = object.members {
                for index in 0..<Int(object.count) {
                    guard let key = pairs[index].key else { continue }
                    members[String(cString: key)] = Value(copying: pairs[index].value, depth: depth + 1)
                }
            }
            self = .object(members)
        default:
            self = .null
        }
    }

    private static func string(_ string: graft_string_t) -> String {
        guard let data = string.data, string.length > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: data, count: string.length)
        return String(decoding: bytes, as: UTF8.self)
    }
}
