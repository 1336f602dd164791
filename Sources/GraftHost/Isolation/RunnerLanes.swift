import CGraftSystem

#if canImport(Glibc)
import Glibc
#endif

/// The runner child's workers: requests about one instance run one at a
/// time, in the order they came (graft.h's instance calls are serial), and
/// everything else runs at once on as many threads as there is work, up to
/// `threadLimit`. A plugin call that hangs holds its thread, never the
/// others: its host kills the process at the call's deadline.
///
/// Threads of its own rather than Dispatch's pool: the pool grows slowly past
/// one thread per CPU when its threads block, and a runner pinned to one CPU
/// would serve two waiting calls one after the other.
final class RunnerLanes: @unchecked Sendable {
    typealias Work = () -> Void

    private let condition = Condition()
    // Guarded by `condition`.
    private var ready: [(lane: UInt32?, work: Work)] = []
    private var readyStart = 0
    /// Lanes with work running, and what waits behind it.
    private var behind: [UInt32: [Work]] = [:]
    private var threads = 0
    private var idle = 0

    /// Threads at most: a thread per call in flight, and calls past this many wait.
    static let threadLimit = 16

    /// Runs `work` after the earlier work of `lane` (an instance's number),
    /// or as soon as a thread is free when `lane` is nil.
    func run(in lane: UInt32?, _ work: @escaping Work) {
        condition.lock()
        defer { condition.unlock() }
        if let lane {
            if behind[lane] != nil {
                behind[lane]!.append(work)
                return
            }
            behind[lane] = []
        }
        ready.append((lane, work))
        // Idle workers may not have woken yet for work posted before: a new
        // thread when more work waits than there are idle workers to take it.
        if ready.count - readyStart > idle, threads < Self.threadLimit, startWorker() {
            threads += 1
        } else {
            condition.signal()
        }
    }

    /// A new worker thread; false when the system refuses one (a memory
    /// limit): the work waits for a thread that exists.
    private func startWorker() -> Bool {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let lanes = Unmanaged<RunnerLanes>.fromOpaque(argument!).takeRetainedValue()
            graft_set_thread_name("graft.worker")
            lanes.work()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<RunnerLanes>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private func work() {
        condition.lock()
        while true {
            while readyStart == ready.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let (lane, work) = ready[readyStart]
            readyStart += 1
            if readyStart == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyStart = 0
            }
            condition.unlock()
            work()
            condition.lock()
            if let lane {
                if var waiting = behind[lane], !waiting.isEmpty {
                    ready.append((lane, waiting.removeFirst()))
                    behind[lane] = waiting
                } else {
                    behind[lane] = nil
                }
            }
        }
    }
}
