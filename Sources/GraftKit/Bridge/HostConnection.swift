import CGraft
import Synchronization

/// The `graft_host_t` given at `init`, kept until `deinit` for GraftKit's own
/// log lines (registration problems, failed creations).
final class HostConnection: Sendable {
    // The address, not the pointer: the host owns the struct and its `log` is
    // [thread-safe]; the lock only orders connect/disconnect against logging,
    // so no line is written through a host that has already said `deinit`.
    private let address = Mutex<UInt>(0)

    func connect(_ host: UnsafePointer<graft_host_t>) {
        let bits = UInt(bitPattern: host)
        address.withLock { $0 = bits }
    }

    func disconnect() {
        address.withLock { $0 = 0 }
    }

    func log(_ level: LogLevel, _ message: String) {
        address.withLock { bits in
            guard let host = UnsafePointer<graft_host_t>(bitPattern: bits) else { return }
            host.pointee.log?(host, level.tag, "GraftKit: " + message)
        }
    }
}
