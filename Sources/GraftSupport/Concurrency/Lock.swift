import CGraftSystem

#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex. Graft's modules import FoundationEssentials only (full
/// Foundation costs every Graft process half a millisecond at start-up), so
/// they have no `NSLock`; `Synchronization.Mutex` is invisible to
/// ThreadSanitizer on Linux (see `Locked`), and a pthread mutex is not.
package final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    // Inlinable, as the modules that take it are others: an unspecialized generic call per lock costs the hot paths.
    @inlinable package func lock() { pthread_mutex_lock(mutex) }
    @inlinable package func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    fileprivate var pointer: UnsafeMutablePointer<pthread_mutex_t> { mutex }
}

/// A lock with a condition variable: `wait` releases the lock until
/// `signal`, then takes it again (as `NSCondition` does).
package final class Condition: @unchecked Sendable {
    private let mutex: Lock
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A condition of its own lock, or of `mutex` shared with other conditions
    /// (threads waiting for different things under one lock).
    package init(sharing mutex: Lock = Lock()) {
        self.mutex = mutex
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    package func lock() { mutex.lock() }
    package func unlock() { mutex.unlock() }

    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result { try mutex.withLock(body) }

    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }
    package func wait() { pthread_cond_wait(condition, mutex.pointer) }

    /// Waits until signalled or until `deadline` (CLOCK_REALTIME, as pthread
    /// counts it by default); false when the deadline passed.
    @discardableResult
    package func wait(forSeconds seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        var deadline = timespec(tv_sec: Int(total), tv_nsec: Int((total - total.rounded(.down)) * 1e9))
        return pthread_cond_timedwait(condition, mutex.pointer, &deadline) == 0
    }
}

/// Starts `body` on a new detached thread named `name` (its first 15 bytes
/// show in `top`). Graft's few long-lived threads must not be pool threads:
/// a busy dispatch pool would delay them, and a child's parent-death signal
/// follows the thread that spawned it.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) { (self.name, self.body) = (name, body) }
    }
    let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        graft_set_thread_name(box.name)
        box.body()
        return nil
    }, box)
    if result == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).release()
        fatalError("pthread_create failed: \(String(cString: strerror(result)))")
    }
}
