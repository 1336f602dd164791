import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An object read on hot paths and replaced rarely, such as the validator
/// table. Readers borrow it inside a `ReadSection`, with no lock and no
/// reference counting; a writer replaces it under a lock and releases the
/// old one only after every reader that could still see it has left.
///
/// A writer waits for that grace period (at most `ReadSection`'s timeout),
/// so a replaced object, and the plugin build it keeps loaded, is released
/// as soon as the replacement is published, as hot swap expects. If a reader
/// is slow to leave (or the writer is itself inside a section), the old
/// object waits in `retired`, and a background retry releases it once its
/// readers have left.
final class ReadMostly<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let current: Atomic<Unmanaged<Object>>
    /// Held, so the hot path skips the lazy global's check.
    private let domain = ReadSection.domain
    /// Replaced objects not yet released, each with the epoch its readers
    /// had to leave before, and whether a background retry is running.
    /// The lock also serializes writers.
    private struct Retired {
        var objects: [(object: Unmanaged<Object>, epoch: UInt64)] = []
        var retrying = false

        /// Removes and returns the objects whose readers have all left.
        mutating func takeReleasable(_ domain: ReadSection.Domain) -> [Unmanaged<Object>] {
            // One fence and one scan of the readers for all the entries.
            guard let oldest = domain.oldestEpochInUse() else { return [] }
            var releasable: [Unmanaged<Object>] = []
            objects.removeAll { entry in
                guard oldest >= entry.epoch else { return false }
                releasable.append(entry.object)
                return true
            }
            return releasable
        }
    }

    private let retired = Locked(Retired())

    init(_ object: Object) {
        current = Atomic(Unmanaged.passRetained(object))
    }

    deinit {
        // No reader can be inside: each holds a reference to an owner of self.
        current.load(ordering: .acquiring).release()
        retired.withLock { retired in
            for entry in retired.objects { entry.object.release() }
        }
    }

    /// Runs `body` on the current object, borrowed: it must not escape
    /// `body` unless `body` copies it (which retains it).
    @inline(__always)
    func withCurrent<Result>(_ body: (Object) -> Result) -> Result {
        withCurrent { object, _ in body(object) }
    }

    /// `withCurrent`, also handing `body` this thread's reader record.
    @inline(__always)
    func withCurrent<Result>(_ body: (Object, ReadSection.Reader) -> Result) -> Result {
        ReadSection.run(in: domain) { reader in
            current.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef { body($0, reader) }
        }
    }

    /// The current object, retained: for callers that keep it.
    var value: Object { withCurrent { $0 } }

    /// Replaces the object with the one `transform` makes from the current
    /// one, then releases the old one after the grace period. Releasing
    /// happens outside the lock: an object's deinit (a plugin's, in the end)
    /// may take time or call back into the host.
    func update<Result>(_ transform: (Object) throws -> (Object, Result)) rethrows -> Result {
        let (result, releasable, retry) = try retired.withLock { retired in
            let old = current.load(ordering: .acquiring)
            let (replacement, result) = try transform(old.takeUnretainedValue())
            current.store(Unmanaged.passRetained(replacement), ordering: .sequentiallyConsistent)
            let epoch = domain.epoch.add(1, ordering: .sequentiallyConsistent).newValue
            retired.objects.append((old, epoch))
            if domain.waitForReaders(before: epoch) {
                defer { retired.objects.removeAll() }
                return (result, retired.objects.map(\.object), false)
            }
            let releasable = retired.takeReleasable(domain)
            let retry = !retired.objects.isEmpty && !retired.retrying
            if retry { retired.retrying = true }
            return (result, releasable, retry)
        }
        for object in releasable { object.release() }
        if retry { retryRelease() }
        return result
    }

    /// Whether replaced objects still wait for readers to leave.
    var hasRetired: Bool { retired.withLock { !$0.objects.isEmpty } }

    /// Retries, on a thread of its own (a busy dispatch pool must not delay
    /// it), until every retired object is released. Holds `self` weakly: if
    /// it goes first, its deinit releases them.
    private func retryRelease() {
        startThread(named: "graft.release") { [weak self] in
            while true {
                usleep(20_000)
                guard let self else { return }
                let (releasable, done) = self.retired.withLock { retired in
                    let releasable = retired.takeReleasable(self.domain)
                    if retired.objects.isEmpty { retired.retrying = false }
                    return (releasable, !retired.retrying)
                }
                for object in releasable { object.release() }
                if done { return }
            }
        }
    }
}
