import CGraftSystem
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The host's side of a runner child's shared-memory ring (`graft_ring.h`):
/// once the child has mapped it, every frame but a descriptor's travels
/// there, and the socket is left with descriptors (a `load`'s file), the
/// sandbox's listener and the child's end.
///
/// A reader waiting on the ring sleeps on a futex, not in `poll`, so it
/// cannot also watch the socket, the output pipe and the child's pidfd:
/// `RingWatch` does, for every child, and wakes the reader (`attention`) or
/// every waiter (`gone`).
final class ChildRing: @unchecked Sendable {
    // Safe: `ring.receive` is used by one reader at a time (the runner's
    // `reading` turn; `ChildProcess.positionLock` around each take),
    // `ring.send` under `sending`; the rest is set once.
    let ring: UnsafeMutablePointer<graft_ring>
    /// This process's own flags the waits look at (`gone`, `attention`):
    /// never in the shared pages, where the child could clear them.
    let alerts: UnsafeMutablePointer<UInt32>
    /// Set once the child is gone: what a writer waiting for room looks at.
    private var stopped: UnsafeMutablePointer<UInt32> { alerts + 1 }
    /// How long a reader spins before it sleeps, when the child last ran on another CPU.
    let spin: UInt32
    private let sending = Lock()
    private var watchToken: Int?
    /// Called by `RingWatch` on its thread once the child has ended, so
    /// that a child dying between calls is reaped then, not at its runner's
    /// next call (a runner no component uses any more may make none).
    let onEnd = Locked<(@Sendable () -> Void)?>(nil)

    static let gone: UInt32 = 1, attention: UInt32 = 2
    /// Bytes each way. Frames larger stream through it.
    static let capacity: UInt64 = 1 << 20

    /// A new ring, or nil when the kernel gives no memory file.
    init?(spin: UInt32) {
        ring = .allocate(capacity: 1)
        ring.initialize(to: graft_ring())
        guard graft_ring_create(Self.capacity, ring) == 0 else {
            ring.deallocate()
            return nil
        }
        ring.pointee.receive.spin_budget = spin
        alerts = .allocate(capacity: 2)
        alerts.initialize(repeating: 0, count: 2)
        self.spin = spin
    }

    deinit {
        if let watchToken { RingWatch.shared.forget(watchToken) }
        graft_ring_unmap(ring)
        ring.deallocate()
        alerts.deallocate()
    }

    var descriptor: Int32 { ring.pointee.fd }

    /// Watches the child's socket, output and pidfd from now on.
    func watch(_ descriptors: [Int32]) {
        watchToken = RingWatch.shared.watch(self, descriptors)
    }

    /// Looks again at the child's descriptors, after the reader has handled
    /// what woke it.
    func rearm() {
        if let watchToken { RingWatch.shared.rearm(watchToken) }
    }

    /// Writes a whole frame (or frames), after `first` (in the same turn);
    /// false when `first` fails, the child is gone or it broke its side of the ring.
    func put(_ bytes: [UInt8], first: () -> Bool) -> Bool {
        sending.withLock {
            first() && bytes.withUnsafeBytes { graft_ring_put(&ring.pointee.send, $0.baseAddress, $0.count, stopped) } == 0
        }
    }

    /// Where what this side has put ends so far.
    var written: UInt64 { sending.withLock { graft_ring_written(&ring.pointee.send) } }

    /// Whether the child says it has taken everything put before `position`
    /// (its word, read from the shared pages: it only decides whether a
    /// request could have reached a child that then died).
    func taken(through position: UInt64) -> Bool { graft_ring_taken(&ring.pointee.send, position) != 0 }

    /// Marks the child gone: waits end, and sends fail.
    func markGone() {
        graft_ring_alert(ring, stopped, 1)
        graft_ring_alert(ring, alerts, Self.gone)
    }

    /// Tells the child to leave (its waits see the ring closed), and stops this side's waits.
    func letGo() {
        graft_ring_close(ring)
        markGone()
    }

    /// The spin for this machine: none on one CPU, where it only delays the other side.
    static var machineSpin: UInt32 { graft_ring_usable_cpus() > 1 ? 50_000 : 0 }
}

/// One thread for every ring child of the host: it sleeps in `epoll_wait`
/// on each child's socket, output pipe and pidfd, and wakes that child's
/// reader when one of them has something (each reports once, until the
/// reader has handled it and re-arms it). An idle host spends no CPU here.
final class RingWatch: @unchecked Sendable {
    static let shared = RingWatch()

    private struct Entry {
        weak var ring: ChildRing?
        var descriptors: [Int32]
    }

    // Guarded by `lock`.
    private let lock = Lock()
    private var entries: [UInt32: Entry] = [:]
    private var nextToken: UInt32 = 0
    private let epoll: Int32

    private init() {
        epoll = graft_watch_create()
        startThread(named: "graft.ring-watch") { [unowned self] in self.loop() }
    }

    func watch(_ ring: ChildRing, _ descriptors: [Int32]) -> Int {
        let token = lock.withLock { () -> UInt32 in
            nextToken &+= 1
            entries[nextToken] = Entry(ring: ring, descriptors: descriptors)
            return nextToken
        }
        for descriptor in descriptors { _ = graft_watch_add(epoll, descriptor, Self.key(token, descriptor)) }
        return Int(token)
    }

    func rearm(_ token: Int) {
        lock.withLock {
            for descriptor in entries[UInt32(token)]?.descriptors ?? [] {
                _ = graft_watch_rearm(epoll, descriptor, Self.key(UInt32(token), descriptor))
            }
        }
    }

    /// Forgets a ring (its descriptors leave the epoll set when they close).
    func forget(_ token: Int) {
        lock.withLock { _ = entries.removeValue(forKey: UInt32(token)) }
    }

    private static func key(_ token: UInt32, _ descriptor: Int32) -> UInt64 {
        UInt64(token) << 32 | UInt64(UInt32(bitPattern: descriptor))
    }

    private func loop() {
        var key: UInt64 = 0
        while graft_watch_next(epoll, &key) == 1 {
            let descriptor = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
            guard let entry = lock.withLock({ entries[UInt32(key >> 32)] }), let ring = entry.ring else { continue }
            // The socket carries nothing after the ring is up: readable means closed (or a child breaking the protocol,
            // which the reader finds); the pidfd readable means ended. The output pipe only wants draining.
            var byte: UInt8 = 0
            let socketClosed = descriptor == entry.descriptors.first && recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
            let ended = entry.descriptors.count > 2 && descriptor == entry.descriptors[2]
            if socketClosed || ended {
                ring.markGone()
                if ended, let onEnd = ring.onEnd.withLock({ $0 }) { onEnd() }
            } else {
                graft_ring_alert(ring.ring, ring.alerts, ChildRing.attention)
            }
        }
    }
}
