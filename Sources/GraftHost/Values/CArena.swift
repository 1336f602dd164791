import CGraft
#if canImport(Glibc)
import Glibc
#endif

/// C memory for the values the host passes into one plugin call. graft.h
/// says what the host passes is valid for the duration of the call, so an
/// arena lives exactly as long as the call and frees everything at once.
package final class CArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    package init() {}

    deinit {
        for block in blocks { block.deallocate() }
    }

    package func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
        blocks.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    /// A NUL-terminated copy of `string`, and its length in bytes.
    package func cString(_ string: String) -> (pointer: UnsafePointer<CChar>, length: Int) {
        var utf8 = string.utf8CString  // includes the terminating NUL
        let count = utf8.count
        let pointer = allocate(CChar.self, count: count)
        utf8.withUnsafeMutableBufferPointer { buffer in
            pointer.initialize(from: buffer.baseAddress!, count: count)
        }
        return (UnsafePointer(pointer), count - 1)
    }

    /// `value` as a `graft_value_t` whose memory belongs to this arena.
    package func cValue(_ value: GraftValue) -> graft_value_t {
        cValuePointer(value).pointee
    }

    /// A pointer to `value` in C form, valid while the arena lives: laid out
    /// as `withCValue` lays it out, in one block of this arena.
    package func cValuePointer(_ value: GraftValue) -> UnsafePointer<graft_value_t> {
        let layout = CFrameLayout(for: value)
        let stride = MemoryLayout<graft_member_t>.stride
        let block = allocate(graft_member_t.self, count: (layout.byteCount + stride - 1) / stride)
        let bytes = UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(block), count: layout.byteCount)
        return UnsafePointer(value.writeC(into: bytes, layout))
    }
}

extension GraftValue {
    /// How deep a plugin's value may nest before the rest is cut off; a bound
    /// keeps a cyclic or hostile value from exhausting the stack.
    static let maximumCDepth = 64

    /// Copies a value a plugin passed to the host. NULL reads as `.null`;
    /// unknown tags too. Invalid UTF-8 is repaired, not trusted.
    init(copying pointer: UnsafePointer<graft_value_t>?) {
        guard let pointer else {
            self = .null
            return
        }
        self.init(copying: pointer.pointee, depth: 0)
    }

    init(copying value: graft_value_t, depth: Int) {
        guard depth < Self.maximumCDepth else {
            self = .null
            return
        }
        switch value.type {
        case UInt32(GRAFT_TYPE_BOOLEAN):
            self = .bool(value.data.boolean)
        case UInt32(GRAFT_TYPE_NUMBER):
            self = .number(value.data.number)
        case UInt32(GRAFT_TYPE_STRING):
            self = .string(String(copying: value.data.string))
        case UInt32(GRAFT_TYPE_LIST):
            let list = value.data.list
            guard let items = list.items, list.count > 0 else {
                self = .list([])
                return
            }
            self = .list((0..<Int(list.count)).map { GraftValue(copying: items[$0], depth: depth + 1) })
        case UInt32(GRAFT_TYPE_OBJECT):
            let object = value.data.object
            var result: [String: GraftValue] = [:]
            if let members = object.members {
                for index in 0..<Int(object.count) {
                    guard let key = members[index].key else { continue }
                    result[String(cString: key)] = GraftValue(copying: members[index].value, depth: depth + 1)
                }
            }
            self = .object(result)
        default:
            self = .null
        }
    }
}

extension String {
    init(copying string: graft_string_t) {
        guard let data = string.data, string.length > 0 else {
            self = ""
            return
        }
        let bytes = UnsafeRawBufferPointer(start: data, count: string.length)
        self = String(decoding: bytes, as: UTF8.self)
    }

    /// A plugin-owned C string, or nil for NULL.
    package init?(plugin pointer: UnsafePointer<CChar>?) {
        guard let pointer else { return nil }
        self = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }
}
