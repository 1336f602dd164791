import CGraft

/// Builds `graft_value_t` trees for one call into the host.
///
/// Every block the tree needs (nodes, members, string bytes) is recorded and
/// freed when the arena goes away, which `with` arranges right after the call
/// returns: the host copies what it keeps (graft.h: "copied during the call").
final class CValueArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit {
        for block in blocks { block.deallocate() }
    }

    /// Calls `body` with `value` as a C tree that lives until `body` returns.
    static func with<R>(_ value: Value, _ body: (UnsafePointer<graft_value_t>) -> R) -> R {
        let arena = CValueArena()
        return withExtendedLifetime(arena) {
            let root = arena.allocate(graft_value_t.self, count: 1)!
            root.initialize(to: arena.make(value))
            return body(root)
        }
    }

    /// Strings are NUL-terminated (not required for plugin-made strings, but
    /// harmless and kind to hosts). Object members are sorted by key;
    /// non-finite numbers become null (graft.h requires finite numbers).
    func make(_ value: Value) -> graft_value_t {
        switch value {
        case .null:
            return graft_null()
        case .bool(let flag):
            return graft_bool(flag)
        case .number(let number):
            return number.isFinite ? graft_number(number) : graft_null()
        case .string(let text):
            let (bytes, length) = copy(text)
            return graft_string(bytes, length)
        case .list(let items):
            let nodes = allocate(graft_value_t.self, count: items.count)
            for (index, item) in items.enumerated() {
                (nodes! + index).initialize(to: make(item))
            }
            return graft_list(nodes, UInt32(items.count))
        case .object(let members):
            let nodes = allocate(graft_member_t.self, count: members.count)
            for (index, key) in members.keys.sorted().enumerated() {
                (nodes! + index).initialize(
                    to: graft_member_t(key: copy(key).bytes, value: make(members[key]!)))
            }
            return graft_object(nodes, UInt32(members.count))
        }
    }

    /// Copies `text` as UTF-8 bytes followed by a NUL.
    func copy(_ text: String) -> (bytes: UnsafePointer<CChar>, length: Int) {
        let utf8 = text.utf8
        let bytes = allocate(CChar.self, count: utf8.count + 1)!
        var index = 0
        for byte in utf8 {
            bytes[index] = CChar(bitPattern: byte)
            index += 1
        }
        bytes[index] = 0
        return (UnsafePointer(bytes), utf8.count)
    }

    /// `nil` for zero elements (graft.h allows NULL when the count is 0).
    private func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T>? {
        guard count > 0 else { return nil }
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: count)
        blocks.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }
}
