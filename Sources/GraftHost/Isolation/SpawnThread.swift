import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftSupport
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One long-lived thread that starts every child. `PR_SET_PDEATHSIG` fires
/// when the *thread* that spawned a child exits, not the process: spawning
/// from a pool thread that later retires would kill a healthy child. This
/// thread never exits.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()
    // Guarded by `condition`.
    private let condition = Condition()
    private var jobs: [() -> Void] = []

    private init() {
        startThread(named: "graft.spawn") { [unowned self] in self.loop() }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on the spawn thread and returns its result.
    func run<Result>(_ body: @escaping () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result?
        condition.lock()
        jobs.append {
            result = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        return result!
    }
}
