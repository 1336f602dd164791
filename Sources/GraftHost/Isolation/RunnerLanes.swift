import CGraftSystem
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// The runner child's threads: requests about one instance run one at a
/// time, in the order they came (graft.h's instance calls are serial), and
/// everything else runs at once on as many threads as there is work, up to
/// `threadLimit`. A plugin call that hangs holds its thread, never the
/// others: its host kills the process at the call's deadline.
///
/// The thread that reads the channel serves a request itself when nothing
/// else runs: a lone call then costs no hand-off to a worker (on one CPU,
/// a context switch each way). While it serves, a stand-by thread watches:
/// if the same call is still running `takeOver` later, the stand-by becomes
/// the reader, so a call that arrives beside a slow or hung one waits at
/// most about twice that. Once its call ends, the old reader stands by.
///
/// Threads of its own rather than Dispatch's pool: the pool grows slowly past
/// one thread per CPU when its threads block, and a runner pinned to one CPU
/// would serve two waiting calls one after the other.
final class RunnerLanes: @unchecked Sendable {
    typealias Work = () -> Void
    /// The next request read from the channel, as its lane and its work;
    /// nil once the host has gone.
    typealias Next = () -> (lane: UInt32?, work: Work)?

    private let next: Next
    private let end: () -> Never
    private let lock = Lock()
    /// Workers wait on `workers`, the stand-by thread on `standBy`, both under `lock`.
    private let workers: Condition
    private let standBy: Condition
    // Guarded by `lock`.
    private var ready: [(lane: UInt32?, work: Work)] = []
    private var readyStart = 0
    /// Lanes with work running, and what waits behind it.
    private var behind: [UInt32: [Work]] = [:]
    private var threads = 0
    private var idle = 0
    /// Work given and not finished, wherever it runs.
    private var inFlight = 0
    /// Bumped each time the reader serves a request itself; `readerServes`
    /// while it does.
    private var servings = 0
    private var readerServes = false
    /// Set when the stand-by took the reader's role during its serving.
    private var roleMoved = false
    /// Whether the stand-by watches the reader's servings (it parks after a
    /// quiet spell, and the next serving wakes it).
    private var watching = false
    /// Whether the reader may serve a lone call itself: there is a stand-by.
    private var servesAlone = false

    /// Threads at most: a thread per call in flight, and calls past this many wait.
    static let threadLimit = 16
    /// How long the reader's own serving may hold the channel before the
    /// stand-by reads it, in seconds.
    static let takeOver = 0.005
    /// Quiet looks after which the stand-by parks.
    static let quietLooks = 200

    init(next: @escaping Next, end: @escaping () -> Never) {
        self.next = next
        self.end = end
        workers = Condition(sharing: lock)
        standBy = Condition(sharing: lock)
    }

    /// Reads and serves on this thread until the host goes; starts the
    /// stand-by (without one, as under a tight memory limit, every call goes
    /// to a worker, and none holds the channel).
    func serve() -> Never {
        let standing = start("graft.serve") { $0.run(reading: false) }
        lock.withLock { servesAlone = standing }
        run(reading: true)
    }

    private func run(reading: Bool) -> Never {
        var reading = reading
        while true {
            reading = reading ? readAndServe() : standByForRole()
        }
    }

    /// Reads requests and serves or queues them, while this thread keeps the
    /// reader's role; false once the stand-by took it.
    private func readAndServe() -> Bool {
        while true {
            guard let (lane, work) = next() else { end() }
            lock.lock()
            inFlight += 1
            guard inFlight == 1, servesAlone else {
                queue(lane, work)
                lock.unlock()
                continue
            }
            if let lane { behind[lane] = [] }
            servings &+= 1
            readerServes = true
            if !watching {
                watching = true
                standBy.signal()
            }
            lock.unlock()
            work()
            lock.lock()
            readerServes = false
            finished(lane)
            if readyStart < ready.count { wakeWorker() }
            let moved = roleMoved
            roleMoved = false
            lock.unlock()
            if moved { return false }
        }
    }

    /// Waits, looking every `takeOver`, for a serving of the reader's that
    /// lasts; true once this thread has taken the reader's role.
    private func standByForRole() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        var seen = servings
        var quiet = 0
        while true {
            guard watching else {
                standBy.wait()
                seen = servings
                quiet = 0
                continue
            }
            standBy.wait(forSeconds: Self.takeOver)
            if readerServes && servings == seen {
                // The same serving as a look ago: it has held the channel too long.
                roleMoved = true
                return true
            }
            quiet = servings == seen ? quiet + 1 : 0
            if quiet >= Self.quietLooks { watching = false }
            seen = servings
        }
    }

    /// Runs `work` after the earlier work of `lane` (an instance's number),
    /// or as soon as a thread is free when `lane` is nil. Called with `lock` held.
    private func queue(_ lane: UInt32?, _ work: @escaping Work) {
        if let lane {
            if behind[lane] != nil {
                behind[lane]!.append(work)
                return
            }
            behind[lane] = []
        }
        ready.append((lane, work))
        wakeWorker()
    }

    /// A worker for the work ready. Idle workers may not have woken yet for
    /// work posted before: a new thread when more work waits than there are
    /// idle workers to take it. Called with `lock` held.
    private func wakeWorker() {
        if ready.count - readyStart > idle, threads < Self.threadLimit, start("graft.worker", { $0.work() }) {
            threads += 1
        } else {
            workers.signal()
        }
    }

    /// Work of `lane` ended: the next in its lane, if any, is ready (a
    /// worker ending it takes it itself). Called with `lock` held.
    private func finished(_ lane: UInt32?) {
        inFlight -= 1
        guard let lane else { return }
        if var waiting = behind[lane], !waiting.isEmpty {
            ready.append((lane, waiting.removeFirst()))
            behind[lane] = waiting
        } else {
            behind[lane] = nil
        }
    }

    /// A new thread running `body`; false when the system refuses one (a
    /// memory limit): a worker's work then waits for a thread that exists.
    private func start(_ name: String, _ body: @escaping (RunnerLanes) -> Void) -> Bool {
        final class Start {
            let lanes: RunnerLanes, name: String, body: (RunnerLanes) -> Void
            init(_ lanes: RunnerLanes, _ name: String, _ body: @escaping (RunnerLanes) -> Void) {
                (self.lanes, self.name, self.body) = (lanes, name, body)
            }
        }
        let box = Unmanaged.passRetained(Start(self, name, body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            graft_set_thread_name(start.name)
            start.body(start.lanes)
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private func work() {
        lock.lock()
        while true {
            while readyStart == ready.count {
                idle += 1
                workers.wait()
                idle -= 1
            }
            let (lane, work) = ready[readyStart]
            readyStart += 1
            if readyStart == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyStart = 0
            }
            lock.unlock()
            work()
            lock.lock()
            finished(lane)
        }
    }
}
