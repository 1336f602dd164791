import CGraft
import Glibc
import Synchronization

/// A `graft_host_t` whose `log` records lines such as "3 GraftKit: …".
final class FakeHost: @unchecked Sendable {
    // Test fake: the C struct is written once in init; the lines sit behind a Mutex.
    let pointer: UnsafeMutablePointer<graft_host_t>
    private let lines = Mutex<[String]>([])
    private let name = strdup("fake-host")!

    var logs: [String] { lines.withLock { $0 } }

    init(abiMajor: UInt32 = UInt32(GRAFT_ABI_MAJOR), abiMinor: UInt32 = UInt32(GRAFT_ABI_MINOR)) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: graft_host_t())
        pointer.pointee.struct_size = UInt32(MemoryLayout<graft_host_t>.stride)
        pointer.pointee.abi = graft_abi_version_t(major: abiMajor, minor: abiMinor)
        pointer.pointee.name = UnsafePointer(name)
        pointer.pointee.version = UnsafePointer(name)
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.log = { host, level, message in
            let fake = Unmanaged<FakeHost>.fromOpaque(host!.pointee.host_data!).takeUnretainedValue()
            let line = "\(level) \(String(cString: message!))"
            fake.lines.withLock { $0.append(line) }
        }
        pointer.pointee.get_extension = { _, _ in nil }
    }

    deinit {
        pointer.deallocate()
        free(name)
    }
}
