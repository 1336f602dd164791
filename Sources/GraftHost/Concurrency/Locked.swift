#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock: the host's one way to share mutable state.
///
/// It stands where `Synchronization.Mutex` would, for one reason:
/// ThreadSanitizer on Linux cannot see `Mutex` (its futex is invisible to the
/// sanitizer's interceptors), so every access it guards is reported as a
/// race, which hides the real ones. A pthread mutex is one the sanitizer
/// understands, and it is as fast here. Hot-swap tests run under TSan.
///
/// One allocation holds both the value and the mutex (a `ManagedBuffer`: the
/// value as its header, the mutex as its one element), as SwiftNIO's locked
/// box does: every component instance has two of these, and separate
/// objects for the lock, the mutex and the value cost six allocations per
/// instance. Values are reached through pointers, so Swift adds no dynamic
/// exclusivity check: the lock already makes access exclusive. Copies of a
/// `Locked` share the one value and lock.
///
/// `@unchecked Sendable` when `Value` is: the value is only read or written
/// inside `withLock`, and what leaves it must itself be safe to share.
package struct Locked<Value> {
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        // The header (the value) is destroyed by ManagedBuffer; the mutex is ours.
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    package init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// `withLock` if the lock is free now; nil without waiting if it is not
    /// (an exit handler must not wait for a thread that will never run again).
    func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        try storage.withUnsafeMutablePointers { value, mutex in
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
