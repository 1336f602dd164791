import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// One long-lived thread that sends what runners queued and no request took
/// along: a destroy waits for the next request to its child (one write, no
/// wake-up of its own) but never longer than `PluginRunner.postDelay`.
/// One thread for the process, and no allocation per send: a timer per
/// destroy (dispatch) left the host's memory creeping over hot swaps.
final class LateSends: @unchecked Sendable {
    static let shared = LateSends()
    // Guarded by `condition`.
    private let condition = Condition()
    /// Runners not held: a host that goes away takes its runners and their
    /// children with it at once (a runner sends its queue when it ends).
    private var due: [(at: ContinuousClock.Instant, runner: Weak<PluginRunner>)] = []

    private init() {
        startThread(named: "graft.late-sends") { [unowned self] in self.loop() }
    }

    /// Has `runner.sendQueued()` called once `delay` has passed, if the
    /// runner is still there.
    func schedule(_ runner: PluginRunner, after delay: Duration) {
        condition.lock()
        due.append((ContinuousClock.now + delay, Weak(runner)))
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while true {
            guard let first = due.first else {
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            if first.at > now {
                // Entries come in deadline order: each has the same delay.
                let wait = now.duration(to: first.at)
                condition.wait(forSeconds: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds))
                continue
            }
            due.removeFirst()
            condition.unlock()
            first.runner.value?.sendQueued()
            condition.lock()
        }
    }
}
