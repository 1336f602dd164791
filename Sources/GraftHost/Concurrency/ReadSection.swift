import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Lock-free read sections with grace periods (epoch-based reclamation):
/// the read side of `ReadMostly`.
///
/// A thread inside a section may use objects a `ReadMostly` published without
/// retaining them; a writer that replaced one waits, before releasing it,
/// until every thread that was inside a section when it was replaced has
/// left. Readers then pay one atomic store to enter and a plain store to
/// leave, where a lock would cost two atomic operations and a retain and
/// release two more; on the validator hot path those were most of the cost.
///
/// Each thread has a `Reader` record, made on its first section and reused by
/// a later thread once it exits. Records are never freed, so a writer can
/// walk them without a lock on the readers' side.
enum ReadSection {
    /// Runs `body` inside a read section on this thread. Sections nest.
    @inline(__always)
    static func run<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        // Unmanaged: the registry keeps every record alive, and a retain and
        // release here would cost as much as the section.
        let reader = Reader.current
        reader._withUnsafeGuaranteedRef { $0.enter() }
        defer { reader._withUnsafeGuaranteedRef { $0.leave() } }
        return try body()
    }

    /// `run`, handing `body` this thread's record (for its lookup cache).
    @inline(__always)
    static func run<Result>(_ body: (Reader) -> Result) -> Result {
        let reader = Reader.current
        return reader._withUnsafeGuaranteedRef { reader in
            reader.enter()
            defer { reader.leave() }
            return body(reader)
        }
    }

    /// The process-wide state, in one object so a section pays for one lazy
    /// global access.
    final class Domain: Sendable {
        /// Bumped by every writer after it replaces an object; readers
        /// record the value they saw when they entered.
        let epoch = Atomic<UInt64>(1)
        /// The thread-local slot of each thread's `Reader`.
        let key: pthread_key_t
        let readers = Locked<[Reader]>([])

        init() {
            var key = pthread_key_t()
            // Frees a record for reuse when its thread exits (never inside a
            // section: a thread cannot exit from inside a closure).
            let status = pthread_key_create(&key) { raw in
                guard let raw else { return }
                Unmanaged<Reader>.fromOpaque(raw).takeUnretainedValue().owned.store(false, ordering: .releasing)
            }
            precondition(status == 0, "pthread_key_create failed (\(status)): no thread-local slot for read sections")
            self.key = key
        }
    }

    static let domain = Domain()


    /// Waits until no thread can still be using what was replaced before
    /// `epoch` reached `target`: every reader has left, or entered after it.
    /// Returns false, instead of waiting, when this thread is itself inside a
    /// section (a validator that reloads a plugin), and when readers are still
    /// inside after `timeout` (a validator that does not return): the caller
    /// then keeps the old object and releases it later.
    static func waitForReaders(before target: UInt64, timeout: Duration = .milliseconds(100)) -> Bool {
        if Reader.current.takeUnretainedValue().isInside { return false }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        for reader in Reader.all() {
            var spins = 0
            while !reader.hasLeft(before: target) {
                spins += 1
                if spins < 64 {
                    sched_yield()
                } else {
                    if clock.now >= deadline { return false }
                    usleep(50)
                }
            }
        }
        return true
    }

    /// Whether every reader has left the sections it was in before `target`,
    /// without waiting.
    static func readersHaveLeft(before target: UInt64) -> Bool {
        Reader.all().allSatisfy { $0.hasLeft(before: target) }
    }
}

extension ReadSection {
    /// One thread's record. Only its thread writes `state`'s non-zero values
    /// and `depth`; writers only read `state`.
    final class Reader: @unchecked Sendable {
        /// 0 outside a section; inside, the epoch seen on entering.
        let state = Atomic<UInt64>(0)
        /// Nesting depth; touched only by the owning thread.
        private var depth = 0
        /// Whether a live thread owns this record.
        let owned = Atomic<Bool>(true)

        var isInside: Bool { depth > 0 }

        /// The last name this thread looked up in a `NameTable`, the table's
        /// serial number and what it found; touched only by the owning
        /// thread, and trusted only inside a section while that table is
        /// the published one (so the object is alive).
        var lookupSerial: UInt64 = 0
        var lookupName = ""
        var lookupResult: UnsafeMutableRawPointer?

        @inline(__always)
        func enter() {
            if depth == 0 {
                // Sequentially consistent: the store must be visible before this
                // thread reads the published object, or a writer scanning
                // readers could miss it and free what it is about to read.
                state.store(ReadSection.domain.epoch.load(ordering: .acquiring), ordering: .sequentiallyConsistent)
            }
            depth += 1
        }

        @inline(__always)
        func leave() {
            depth -= 1
            if depth == 0 { state.store(0, ordering: .releasing) }
        }

        func hasLeft(before target: UInt64) -> Bool {
            let seen = state.load(ordering: .sequentiallyConsistent)
            return seen == 0 || seen >= target
        }

        /// This thread's record, unretained: the registry keeps it alive.
        @inline(__always)
        static var current: Unmanaged<Reader> {
            if let raw = pthread_getspecific(domain.key) { return Unmanaged<Reader>.fromOpaque(raw) }
            return adopt()
        }

        static func all() -> [Reader] { domain.readers.withLock { $0 } }

        /// The first section on this thread: reuse the record of a thread that
        /// exited, or make one.
        private static func adopt() -> Unmanaged<Reader> {
            let reader = domain.readers.withLock { readers in
                if let free = readers.first(where: { $0.owned.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }) {
                    return free
                }
                let made = Reader()
                readers.append(made)
                return made
            }
            // The registry keeps the record alive; the key holds it unretained.
            let unmanaged = Unmanaged.passUnretained(reader)
            pthread_setspecific(domain.key, unmanaged.toOpaque())
            return unmanaged
        }
    }
}
