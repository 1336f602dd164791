import CGraft
import Synchronization

/// Which registry built each factory and each validator and action descriptor
/// table. The C functions are shared by every registry in the process (one per
/// plugin image, plus any in-process plugins); graft.h passes the factory or
/// the descriptor as `self`, and its address says whose Swift code to run.
enum DescriptorOwners {
    private static let factories = Mutex<[UInt: Registry]>([:])

    static func record(factory: UnsafeRawPointer, registry: Registry) {
        factories.withLock { $0[UInt(bitPattern: factory)] = registry }
    }

    static func owner(ofFactory factory: UnsafeRawPointer?) -> Registry? {
        guard let factory else { return nil }
        return factories.withLock { $0[UInt(bitPattern: factory)] }
    }

    private struct Table {
        var start: UInt
        var end: UInt
        var stride: UInt
        var registry: Registry
    }

    private static let validators = Mutex<[Table]>([])
    private static let actions = Mutex<[Table]>([])

    static func record(_ table: UnsafePointer<graft_validator_descriptor_t>, count: Int, registry: Registry) {
        validators.withLock { $0.append(Self.table(table, count: count, registry: registry)) }
    }

    static func record(_ table: UnsafePointer<graft_action_descriptor_t>, count: Int, registry: Registry) {
        actions.withLock { $0.append(Self.table(table, count: count, registry: registry)) }
    }

    static func owner(of descriptor: UnsafePointer<graft_validator_descriptor_t>) -> (registry: Registry, index: Int)? {
        validators.withLock { find(UInt(bitPattern: descriptor), in: $0) }
    }

    static func owner(of descriptor: UnsafePointer<graft_action_descriptor_t>) -> (registry: Registry, index: Int)? {
        actions.withLock { find(UInt(bitPattern: descriptor), in: $0) }
    }

    private static func table<T>(_ pointer: UnsafePointer<T>, count: Int, registry: Registry) -> Table {
        let start = UInt(bitPattern: pointer)
        let stride = UInt(MemoryLayout<T>.stride)
        return Table(start: start, end: start + UInt(count) * stride, stride: stride, registry: registry)
    }

    private static func find(_ address: UInt, in tables: [Table]) -> (registry: Registry, index: Int)? {
        for table in tables where address >= table.start && address < table.end {
            let offset = address - table.start
            guard offset % table.stride == 0 else { return nil }
            return (table.registry, Int(offset / table.stride))
        }
        return nil
    }
}
