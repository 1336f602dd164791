import CGraftSystem
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An object read on every hot call and replaced rarely (the validator
/// table), read with no lock and no reference count, and released only once
/// no reader can still be using it. This file is Graft's whole lock-free core.
///
/// How it works (epoch-based reclamation, a small cousin of Linux's RCU):
///
/// - **Readers.** Each thread has a `ReadRecord`. `read` stores the
///   current epoch in it, loads the published object, lends it to the body
///   (no retain), then stores 0: two plain stores and two loads.
/// - **Writers** (`update`, serialized by a lock) publish the replacement,
///   bump the epoch and retire the old object, tagged with the new epoch. A
///   retired object is released once every record holds 0 or an epoch at
///   least its tag: every reader that could have loaded it has left.
/// - **Nobody waits.** The writer checks once, right after publishing. If a
///   reader is still inside (a slow validator, or the writer itself inside a
///   read, as when a validator reloads a plugin), the object stays retired
///   and a reclaimer thread, started then and gone once the list is empty,
///   checks again every millisecond. So a replaced plugin build is released
///   within a millisecond of the last call in it returning, readers pay
///   nothing for it, and no writer ever holds a lock (its own or the
///   host's) while waiting for readers.
/// - **Ordering.** A writer must see a reader's entering store before that
///   reader loads the object, or it could release what the reader is about
///   to use. That needs a full fence on one side. Readers would pay
///   it on every call (an `xchg`, a third of a fast validation); instead the
///   writer issues `membarrier(2)`, which runs a fence on every CPU running a
///   thread of this process, once per check. Where the kernel refuses it
///   (old kernels, some seccomp filters, `GRAFT_MEMBARRIER=0`), readers
///   fence themselves.
/// - **Records** are made on a thread's first read, reused once it exits,
///   and never freed, so a writer walks them without stopping readers. Each
///   also carries its thread's one-entry lookup cache for `NameTable`.
final class ReadMostly<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let current: Atomic<Unmanaged<Object>>
    /// Serializes writers of this object.
    private let writer = Lock()
    /// Held, so the hot path skips the lazy global's check.
    private let domain = ReadDomain.shared

    init(_ object: Object) {
        current = Atomic(Unmanaged.passRetained(object))
    }

    deinit {
        // No reader can be inside: each holds a reference to an owner of self.
        // Objects this one retired wait in the domain, which releases them.
        current.load(ordering: .acquiring).release()
    }

    /// Lends the current object, and this thread's record (for its lookup
    /// cache), to `body`. The object must not escape `body` unless `body`
    /// copies it, which retains it.
    @inline(__always)
    func read<Result>(_ body: (Object, ReadRecord) -> Result) -> Result {
        // Unmanaged: the domain keeps every record alive, and a retain and
        // release here would cost as much as the read.
        ReadRecord.current()._withUnsafeGuaranteedRef { reader in
            reader.enter(domain)
            defer { reader.leave(domain) }
            return current.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef { body($0, reader) }
        }
    }

    @inline(__always)
    func read<Result>(_ body: (Object) -> Result) -> Result {
        read { object, _ in body(object) }
    }

    /// The current object, retained: for callers that keep it.
    var value: Object { read { $0 } }

    /// Publishes the object `transform` makes from the current one and
    /// retires the old one (released at once when no reader holds it).
    func update<Result>(_ transform: (Object) throws -> (Object, Result)) rethrows -> Result {
        let (old, result) = try writer.withLock {
            let old = current.load(ordering: .acquiring)
            let (replacement, result) = try transform(old.takeUnretainedValue())
            current.store(Unmanaged.passRetained(replacement), ordering: .sequentiallyConsistent)
            return (old, result)
        }
        // The +1 the published pointer held moves to the retired entry.
        domain.retire(Unmanaged.passRetained(old.takeRetainedValue() as AnyObject))
        return result
    }

    /// Whether a retired object, of any `ReadMostly`, still waits for a reader.
    static var hasRetired: Bool { ReadDomain.shared.hasRetired }
}

/// One thread's record. Only its thread writes `state`'s non-zero values
/// and the other fields; writers only read `state`.
final class ReadRecord: @unchecked Sendable {
    /// 0 outside a read; inside, the epoch seen on entering.
    private let state = Atomic<UInt64>(0)
    /// Nesting depth: reads nest (a validator may validate).
    private var depth = 0
    /// Whether a live thread owns this record.
    fileprivate let owned = Atomic<Bool>(true)

    /// The last name this thread looked up in a `NameTable`, the table's
    /// serial number and what it found; trusted only inside a read while
    /// that table is the one published (so the object is alive).
    var lookupSerial: UInt64 = 0
    var lookupName = ""
    var lookupResult: UnsafeMutableRawPointer?

    @inline(__always)
    fileprivate func enter(_ domain: ReadDomain) {
        if depth == 0 {
            let epoch = domain.epoch.load(ordering: .acquiring)
            if domain.writersFence {
                // The writer's membarrier orders this store; only the
                // compiler must not sink it below the load that follows.
                state.store(epoch, ordering: .relaxed)
                graft_compiler_barrier()
            } else {
                state.store(epoch, ordering: .sequentiallyConsistent)
            }
        }
        depth += 1
    }

    @inline(__always)
    fileprivate func leave(_ domain: ReadDomain) {
        depth -= 1
        guard depth == 0 else { return }
        // Everything this read did happens before a writer sees it gone.
        state.store(0, ordering: .releasing)
    }

    /// The epoch this reader entered at, or nil outside a read.
    fileprivate var enteredAt: UInt64? {
        let seen = state.load(ordering: .sequentiallyConsistent)
        return seen == 0 ? nil : seen
    }

    /// This thread's record, unretained: the domain keeps it alive.
    @inline(__always)
    static func current() -> Unmanaged<ReadRecord> {
        if let raw = graft_thread_reader_get() { return Unmanaged<ReadRecord>.fromOpaque(raw) }
        return adopt()
    }

    /// The first read on this thread: reuse the record of a thread that
    /// exited, or make one.
    private static func adopt() -> Unmanaged<ReadRecord> {
        let domain = ReadDomain.shared
        let reader = domain.readers.withLock { readers in
            if let free = readers.first(where: {
                $0.owned.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
            }) {
                return free
            }
            let made = ReadRecord()
            readers.append(made)
            return made
        }
        let unmanaged = Unmanaged.passUnretained(reader)
        graft_thread_reader_set(unmanaged.toOpaque())
        pthread_setspecific(domain.threadExit, unmanaged.toOpaque())  // for the exit destructor only
        return unmanaged
    }
}

/// The epoch, the readers' records and the retired objects, for every
/// `ReadMostly` in the process.
final class ReadDomain: @unchecked Sendable {
    static let shared = ReadDomain()

    /// Bumped by every writer after it publishes; readers record the value
    /// they saw when they entered.
    fileprivate let epoch = Atomic<UInt64>(1)
    /// Every record ever made.
    fileprivate let readers = Locked<[ReadRecord]>([])
    /// Replaced objects not yet released, each with its tag, and whether
    /// the reclaimer thread runs.
    private let retired = Locked<(objects: [(object: Unmanaged<AnyObject>, epoch: UInt64)], reclaiming: Bool)>(([], false))
    /// Whether writers issue `membarrier(2)` so that readers need no fence.
    let writersFence: Bool
    /// A thread-local key whose destructor frees a thread's record for
    /// reuse; reads use a plain thread-local variable, which is faster.
    fileprivate let threadExit: pthread_key_t

    private init() {
        var key = pthread_key_t()
        // Never run inside a read: a thread cannot exit from inside a closure.
        let status = pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<ReadRecord>.fromOpaque(raw).takeUnretainedValue().owned.store(false, ordering: .releasing)
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): no thread-local slot for reads")
        threadExit = key
        let disabled = getenv("GRAFT_MEMBARRIER").map { String(cString: $0) == "0" } ?? false
        writersFence = !disabled && graft_membarrier_register() == 0 && graft_membarrier() == 0
    }

    fileprivate func retire(_ object: Unmanaged<AnyObject>) {
        let tag = epoch.add(1, ordering: .sequentiallyConsistent).newValue
        retired.withLock { $0.objects.append((object, tag)) }
        if releaseRetired() { startReclaimer() }
    }

    var hasRetired: Bool { retired.withLock { !$0.objects.isEmpty } }

    /// Releases the retired objects no reader can still use. Returns whether
    /// some remain. Releasing happens outside every lock: an object's deinit
    /// (a plugin's, in the end) may take time or call back into the host.
    private func releaseRetired() -> Bool {
        let (releasable, remain): ([Unmanaged<AnyObject>], Bool) = retired.withLock { retired in
            guard !retired.objects.isEmpty else { return ([], false) }
            // After the fence every reader's entering store is visible.
            // Should it fail (registration succeeded, so it should not), keep
            // everything for the next check.
            guard fenceReaders() else { return ([], true) }
            let oldest = readers.withLock { $0 }.reduce(UInt64.max) { oldest, reader in
                reader.enteredAt.map { min(oldest, $0) } ?? oldest
            }
            var releasable: [Unmanaged<AnyObject>] = []
            retired.objects.removeAll { entry in
                guard oldest >= entry.epoch else { return false }
                releasable.append(entry.object)
                return true
            }
            return (releasable, !retired.objects.isEmpty)
        }
        for object in releasable { object.release() }
        return remain
    }

    /// Checks every millisecond, on a thread of its own (a busy dispatch
    /// pool must not delay it), until nothing is retired.
    private func startReclaimer() {
        let start = retired.withLock { retired in
            defer { retired.reclaiming = true }
            return !retired.reclaiming
        }
        guard start else { return }
        startThread(named: "graft.reclaim") { [self] in
            while true {
                usleep(1_000)
                if releaseRetired() { continue }
                // Stop, unless something was retired since the check.
                let done = retired.withLock { retired in
                    if retired.objects.isEmpty { retired.reclaiming = false }
                    return !retired.reclaiming
                }
                if done { return }
            }
        }
    }

    private func fenceReaders() -> Bool {
        guard writersFence else { return true }
        for _ in 0..<3 where graft_membarrier() == 0 { return true }
        return false
    }
}
