import CGraft
import GraftKit

/// Builds host-owned `graft_value_t` trees for calls into the plugin, with
/// its own code (not GraftKit's), freed when the tree goes away. Strings are
/// NUL-terminated at `data[length]`, as graft.h promises for host strings.
final class CTree {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit {
        for block in blocks { block.deallocate() }
    }

    func pointer(_ value: Value) -> UnsafePointer<graft_value_t> {
        pointer(to: make(value))
    }

    func pointer(to value: graft_value_t) -> UnsafePointer<graft_value_t> {
        UnsafePointer(allocate([value]))
    }

    func make(_ value: Value) -> graft_value_t {
        switch value {
        case .null: return graft_null()
        case .bool(let flag): return graft_bool(flag)
        case .number(let number): return graft_number(number)
        case .string(let text): return bytes(Array(text.utf8))
        case .list(let items): return graft_list(allocate(items.map(make)), UInt32(items.count))
        case .object(let members):
            let pairs = members.map { graft_member_t(key: cString($0.key), value: make($0.value)) }
            return graft_object(allocate(pairs), UInt32(pairs.count))
        }
    }

    /// A string value holding exactly these bytes (valid UTF-8 or not).
    func bytes(_ bytes: [UInt8]) -> graft_value_t {
        let storage = allocate(bytes.map { CChar(bitPattern: $0) } + [0])
        return graft_string(storage, bytes.count)
    }

    func cString(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(allocate(text.utf8.map { CChar(bitPattern: $0) } + [0]))
    }

    func allocate<T>(_ items: [T]) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(items.count, 1))
        pointer.initialize(from: items, count: items.count)
        blocks.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }
}
