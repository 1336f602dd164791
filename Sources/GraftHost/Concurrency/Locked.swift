import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock: the host's one way to share mutable state.
///
/// It stands where `Synchronization.Mutex` would, for one reason:
/// ThreadSanitizer on Linux cannot see `Mutex` (its futex is invisible to the
/// sanitizer's interceptors), so every access it guards is reported as a
/// race, which hides the real ones. A pthread mutex is one the sanitizer
/// understands (`Lock`), and it is as fast here. Hot-swap tests run under TSan.
///
/// The value lives behind a pointer rather than in a stored `var`: the lock
/// already makes access exclusive, and a class `var` would add Swift's
/// dynamic exclusivity check to every access.
///
/// `@unchecked Sendable` when `Value` is: the value is only read or written
/// inside `withLock`, and what leaves it must itself be safe to share.
final class Locked<Value> {
    private let lock = Lock()
    private let value: UnsafeMutablePointer<Value>

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value.pointee)
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
