import CGraft
#if canImport(Glibc)
import Glibc
#endif

extension GraftValue {
    /// Calls `body` with this value in C form, valid for the duration of the
    /// call (graft.h asks no longer of what a host passes). Every node, member
    /// and string goes into one temporary block, on the stack when it is
    /// small: the instance and call paths make no allocation for their inputs.
    /// An object's members are in byte order of their keys, on every run.
    func withCValue<R, E: Error>(_ body: (UnsafePointer<graft_value_t>) throws(E) -> R) throws(E) -> R {
        let layout = CFrameLayout(for: self)
        let result: Result<R, E> = withUnsafeTemporaryAllocation(
            byteCount: layout.byteCount, alignment: MemoryLayout<graft_member_t>.alignment
        ) { block in
            let root = writeC(into: block, layout)
            do throws(E) {
                return .success(try body(UnsafePointer(root)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Writes this value in C form into `block` (at least `layout.byteCount`
    /// bytes, aligned for `graft_member_t`); returns the root node.
    func writeC(into block: UnsafeMutableRawBufferPointer, _ layout: CFrameLayout) -> UnsafeMutablePointer<graft_value_t> {
        var frame = CFrame(block: block, membersStart: layout.membersStart, textStart: layout.textStart)
        let root = frame.values(1)
        root.initialize(to: frame.write(self))
        return root
    }
}

/// Where a value's nodes, members and string bytes (each with its NUL) go in
/// one block: nodes first, then members, then text.
struct CFrameLayout {
    let membersStart: Int, textStart: Int, byteCount: Int

    init(for value: GraftValue) {
        var size = CFrameSize()
        size.count(value)
        membersStart = size.values * MemoryLayout<graft_value_t>.stride
        textStart = membersStart + size.members * MemoryLayout<graft_member_t>.stride
        byteCount = textStart + size.text
    }
}

/// How many nodes, members and string bytes a value needs.
private struct CFrameSize {
    var values = 1, members = 0, text = 0

    mutating func count(_ value: GraftValue) {
        switch value {
        case .null, .bool, .number: break
        case .string(let string): text += string.utf8.count + 1
        case .list(let items):
            values += items.count
            for item in items { count(item) }
        case .object(let object):
            members += object.count
            for (key, member) in object {
                text += key.utf8.count + 1
                count(member)
            }
        }
    }
}

/// Hands out the regions of one block in order: nodes, then members, then text.
private struct CFrame {
    let block: UnsafeMutableRawBufferPointer
    var nextValue = 0, nextMember: Int, nextText: Int

    init(block: UnsafeMutableRawBufferPointer, membersStart: Int, textStart: Int) {
        self.block = block
        nextMember = membersStart
        nextText = textStart
    }

    mutating func values(_ count: Int) -> UnsafeMutablePointer<graft_value_t> {
        defer { nextValue += count * MemoryLayout<graft_value_t>.stride }
        return (block.baseAddress! + nextValue).assumingMemoryBound(to: graft_value_t.self)
    }

    mutating func members(_ count: Int) -> UnsafeMutablePointer<graft_member_t> {
        defer { nextMember += count * MemoryLayout<graft_member_t>.stride }
        return (block.baseAddress! + nextMember).assumingMemoryBound(to: graft_member_t.self)
    }

    /// A NUL-terminated copy of `string`, and its length without the NUL.
    mutating func text(_ string: String) -> (UnsafePointer<CChar>, Int) {
        var string = string
        let start = (block.baseAddress! + nextText).assumingMemoryBound(to: CChar.self)
        let length = string.withUTF8 { utf8 in
            if let source = utf8.baseAddress { UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: utf8.count) }
            return utf8.count
        }
        start[length] = 0
        nextText += length + 1
        return (UnsafePointer(start), length)
    }

    mutating func write(_ value: GraftValue) -> graft_value_t {
        var result = graft_value_t()
        switch value {
        case .null:
            result.type = UInt32(GRAFT_TYPE_NULL)
        case .bool(let bool):
            result.type = UInt32(GRAFT_TYPE_BOOLEAN)
            result.data.boolean = bool
        case .number(let number):
            result.type = UInt32(GRAFT_TYPE_NUMBER)
            result.data.number = number
        case .string(let string):
            result.type = UInt32(GRAFT_TYPE_STRING)
            let (pointer, length) = text(string)
            result.data.string = graft_string_t(data: pointer, length: length)
        case .list(let items):
            result.type = UInt32(GRAFT_TYPE_LIST)
            let nodes = values(items.count)
            for (index, item) in items.enumerated() { (nodes + index).initialize(to: write(item)) }
            result.data.list.items = UnsafePointer(nodes)
            result.data.list.count = UInt32(items.count)
        case .object(let object):
            result.type = UInt32(GRAFT_TYPE_OBJECT)
            let slots = members(object.count)
            for (index, (key, member)) in object.enumerated() {
                (slots + index).initialize(to: graft_member_t(key: text(key).0, value: write(member)))
            }
            Self.sortByKey(UnsafeMutableBufferPointer(start: slots, count: object.count))
            result.data.object.members = UnsafePointer(slots)
            result.data.object.count = UInt32(object.count)
        }
        return result
    }

    /// In place, by the keys' bytes: objects are small, so an insertion sort
    /// (no allocation) for the usual few members.
    private static func sortByKey(_ slots: UnsafeMutableBufferPointer<graft_member_t>) {
        var members = slots
        guard members.count > 1 else { return }
        guard members.count <= 32 else {
            members.sort { strcmp($0.key, $1.key) < 0 }
            return
        }
        for index in 1..<members.count {
            let member = members[index]
            var slot = index
            while slot > 0, strcmp(members[slot - 1].key, member.key) > 0 {
                members[slot] = members[slot - 1]
                slot -= 1
            }
            members[slot] = member
        }
    }
}
