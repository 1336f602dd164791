import CGraftSystem
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
/// left. A lock would cost a reader two atomic operations and a retain and
/// release two more; on the validator hot path those were most of the cost.
///
/// Entering stores the epoch in the thread's record, and that store must be
/// visible to a writer before the reader reads the published object. Where
/// the kernel offers `membarrier(2)`, the writer forces that with one system
/// call per grace period, and readers pay a plain store; elsewhere each
/// reader pays a sequentially consistent store (an `xchg` on x86).
///
/// Each thread has a `Reader` record, made on its first section and reused by
/// a later thread once it exits. Records are never freed, so a writer can
/// walk them without a lock on the readers' side.
enum ReadSection {
    /// Runs `body` inside a read section on this thread, handing it the
    /// thread's record (for its lookup cache). Sections nest.
    @inline(__always)
    static func run<Result>(in domain: Domain, _ body: (Reader) -> Result) -> Result {
        // Unmanaged: the domain keeps every record alive, and a retain and
        // release here would cost as much as the section.
        Reader.current(in: domain)._withUnsafeGuaranteedRef { reader in
            reader.enter(domain)
            defer { reader.leave() }
            return body(reader)
        }
    }

    /// The process-wide state. Hot paths hold a reference to it rather than
    /// reading the lazy global each time.
    final class Domain: Sendable {
        /// Bumped by every writer after it replaces an object; readers
        /// record the value they saw when they entered.
        let epoch = Atomic<UInt64>(1)
        /// A thread-local key whose destructor frees a thread's `Reader` for
        /// reuse; lookups use a plain thread-local variable, which is faster.
        let key: pthread_key_t
        let readers = Locked<[Reader]>([])
        /// Whether writers issue `membarrier(2)` so that readers need no fence.
        /// `GRAFT_MEMBARRIER=0` in the environment turns it off (readers then
        /// fence themselves), for kernels or sandboxes that misbehave and for
        /// the tests of that path.
        let writersFence: Bool

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
            let disabled = getenv("GRAFT_MEMBARRIER").map { String(cString: $0) == "0" } ?? false
            writersFence = !disabled && graft_membarrier_register() == 0 && graft_membarrier() == 0
        }

        /// Makes every reader's entering store visible before the caller
        /// reads the readers' states. False if the fence failed, which the
        /// successful registration rules out; the caller then keeps what it
        /// would have released.
        func fenceReaders() -> Bool {
            guard writersFence else { return true }
            for _ in 0..<3 where graft_membarrier() == 0 { return true }
            return false
        }

        /// Waits until no thread can still be using what was replaced before
        /// `epoch` reached `target`: every reader has left, or entered after.
        /// Returns false, instead of waiting, when this thread is itself
        /// inside a section (a validator that reloads a plugin), and when
        /// readers are still inside after `timeout` (a validator that does
        /// not return): the caller then keeps the old object for later.
        func waitForReaders(before target: UInt64, timeout: Duration = .milliseconds(100)) -> Bool {
            if Reader.current(in: self).takeUnretainedValue().isInside { return false }
            guard fenceReaders() else { return false }
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            for reader in readers.withLock({ $0 }) {
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

        /// The oldest epoch a reader is still inside, read after one fence
        /// and without waiting: `.max` when no reader is inside, nil when the
        /// fence failed. What was replaced before epoch `e` is free once this
        /// is at least `e`.
        func oldestEpochInUse() -> UInt64? {
            guard fenceReaders() else { return nil }
            return readers.withLock { $0 }.reduce(UInt64.max) { oldest, reader in
                let seen = reader.state.load(ordering: .sequentiallyConsistent)
                return seen == 0 ? oldest : min(oldest, seen)
            }
        }
    }

    static let domain = Domain()
}

extension ReadSection {
    /// One thread's record. Only its thread writes `state`'s non-zero values
    /// and the plain fields; writers only read `state`.
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
        func enter(_ domain: Domain) {
            if depth == 0 {
                let epoch = domain.epoch.load(ordering: .acquiring)
                if domain.writersFence {
                    // The writer's membarrier orders this store for us; only
                    // the compiler must not sink it below the reads that follow.
                    state.store(epoch, ordering: .relaxed)
                    graft_compiler_barrier()
                } else {
                    // Visible before this thread reads the published object,
                    // or a writer scanning readers could miss it and free
                    // what it is about to read.
                    state.store(epoch, ordering: .sequentiallyConsistent)
                }
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

        /// This thread's record, unretained: the domain keeps it alive.
        @inline(__always)
        static func current(in domain: Domain) -> Unmanaged<Reader> {
            if let raw = graft_thread_reader_get() { return Unmanaged<Reader>.fromOpaque(raw) }
            return adopt(in: domain)
        }

        /// The first section on this thread: reuse the record of a thread that
        /// exited, or make one.
        private static func adopt(in domain: Domain) -> Unmanaged<Reader> {
            let reader = domain.readers.withLock { readers in
                if let free = readers.first(where: {
                    $0.owned.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
                }) {
                    return free
                }
                let made = Reader()
                readers.append(made)
                return made
            }
            let unmanaged = Unmanaged.passUnretained(reader)
            graft_thread_reader_set(unmanaged.toOpaque())
            pthread_setspecific(domain.key, unmanaged.toOpaque())  // for the exit destructor only
            return unmanaged
        }
    }
}
