import CGraft
import GraftHost

/// Component inputs as the C value the plugin receives, built here rather
/// than by the host's drift check: the hostile-inputs test must hand a
/// plugin what a host never would (a wrong type, bytes that are not UTF-8)
/// and see what it does with them.
struct RawInputs {
    enum Member {
        case value(GraftValue)
        /// A string of these exact bytes, NUL-terminated as graft.h promises.
        case bytes([UInt8])
    }

    private(set) var members: [(key: String, value: Member)]

    init(_ object: [String: GraftValue]) {
        members = object.sorted { $0.key < $1.key }.map { ($0.key, .value($0.value)) }
    }

    mutating func set(_ key: String, _ member: Member) {
        remove(key)
        members.append((key, member))
    }

    mutating func remove(_ key: String) { members.removeAll { $0.key == key } }

    /// The inputs as one OBJECT value whose memory belongs to `arena`.
    func cValue(in arena: CArena) -> UnsafePointer<graft_value_t> {
        let buffer = arena.allocate(graft_member_t.self, count: members.count)
        for (index, member) in members.enumerated() {
            let value: graft_value_t
            switch member.value {
            case .value(let graft): value = arena.cValue(graft)
            case .bytes(let bytes): value = Self.string(bytes, in: arena)
            }
            (buffer + index).initialize(to: graft_member_t(key: arena.cString(member.key).pointer, value: value))
        }
        var object = graft_value_t()
        object.type = UInt32(GRAFT_TYPE_OBJECT)
        object.data.object.members = UnsafePointer(buffer)
        object.data.object.count = UInt32(members.count)
        let pointer = arena.allocate(graft_value_t.self, count: 1)
        pointer.initialize(to: object)
        return UnsafePointer(pointer)
    }

    /// A STRING value of `bytes` as they are (no UTF-8 check), NUL-terminated.
    static func string(_ bytes: [UInt8], in arena: CArena) -> graft_value_t {
        let storage = arena.allocate(CChar.self, count: bytes.count + 1)
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawPointer(storage).copyMemory(from: source.baseAddress!, byteCount: bytes.count)
        }
        storage[bytes.count] = 0
        var value = graft_value_t()
        value.type = UInt32(GRAFT_TYPE_STRING)
        value.data.string = graft_string_t(data: UnsafePointer(storage), length: bytes.count)
        return value
    }
}
