import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Watches the CPU time of runner children while no call is in flight: a
/// plugin's thread that goes on spinning after its call returned would cost
/// a long-lived server a core, and nothing else would notice. One thread for
/// every runner of the process wakes twice a second while there are
/// children to watch (and sleeps otherwise), and reads each child's CPU
/// clock: a few system calls a child, no measurable CPU. A child that used
/// more than its budget (`IsolationLimits.idleCPU`, per second) over a half
/// second in which no call was in flight, started or ended is stopped and
/// reported as `plugin_cpu_idle`; its next call gets a fresh child.
package final class IdleCPUWatch: @unchecked Sendable {
    static let shared = IdleCPUWatch()
    static let interval = Duration.milliseconds(500)

    // Guarded by `condition`.
    private let condition = Condition()
    private var runners: [Weak<PluginRunner>] = []
    /// The last sample of each runner's child; used by the thread only.
    private var last: [ObjectIdentifier: PluginRunner.IdleSample] = [:]

    private init() {
        startThread(named: "graft.cpu") { [unowned self] in self.loop() }
    }

    /// Watches `runner`'s children from now on (once: later calls change nothing).
    func watch(_ runner: PluginRunner) {
        condition.withLock {
            guard !runners.contains(where: { $0.value === runner }) else { return }
            runners.append(Weak(runner))
            condition.signal()
        }
    }

    private func loop() {
        while true {
            let current: [PluginRunner] = condition.withLock {
                runners.removeAll { $0.value == nil }
                while runners.isEmpty { condition.wait() }
                _ = condition.wait(forSeconds: Self.interval / .seconds(1))
                return runners.compactMap(\.value)
            }
            var seen: Set<ObjectIdentifier> = []
            for runner in current {
                let key = ObjectIdentifier(runner)
                seen.insert(key)
                guard let sample = runner.idleSample() else {
                    last[key] = nil
                    continue
                }
                defer { last[key] = sample }
                guard let previous = last[key], previous.isIdle(until: sample) else { continue }
                let used = sample.cpu - previous.cpu
                let allowed = runner.limits.idleCPU.map { $0 * ((sample.at - previous.at) / .seconds(1)) }
                if let allowed, used > allowed {
                    runner.stopIdleChild(sample, used: used, over: sample.at - previous.at)
                    last[key] = nil
                }
            }
            last = last.filter { seen.contains($0.key) }
        }
    }

    /// The CPU time `pid` and the processes below it have used (a child with
    /// the sandbox off serves from a grandchild: see `graft_contain_descendants`).
    package static func cpuTime(ofTree pid: pid_t) -> Duration {
        var total = Duration.zero
        var queue = [pid], visited = 0
        while let process = queue.popLast(), visited < 64 {
            visited += 1
            var clock = clockid_t()
            var time = timespec()
            if clock_getcpuclockid(process, &clock) == 0, clock_gettime(clock, &time) == 0 {
                total += .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
            }
            queue += children(of: process)
        }
        return total
    }

    /// The processes `pid`'s main thread started (/proc/PID/task/PID/children).
    static func children(of pid: pid_t) -> [pid_t] {
        let file = open("/proc/\(pid)/task/\(pid)/children", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return [] }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(file, &buffer, buffer.count)
        guard count > 0 else { return [] }
        return buffer[0..<count].split(separator: UInt8(ascii: " ")).compactMap { pid_t(String(decoding: $0, as: UTF8.self)) }
    }
}

extension PluginRunner {
    /// One look at a runner's child: which child, its CPU time, how many
    /// requests the runner had made, and whether one was in flight.
    struct IdleSample {
        var child: ObjectIdentifier
        var pid: pid_t
        var cpu: Duration
        var requests: UInt32
        var inFlight: Bool
        var at: ContinuousClock.Instant

        /// Whether, from this sample to `later`, the same child had no call in flight, started or ended.
        func isIdle(until later: IdleSample) -> Bool {
            child == later.child && requests == later.requests && !inFlight && !later.inFlight
        }
    }

    /// The child's CPU time now, with what says whether it was idle; nil without a child.
    func idleSample() -> IdleSample? {
        lock.withLock {
            guard let child = supervisor.child, let pid = child.processID else { return nil }
            return IdleSample(
                child: ObjectIdentifier(child), pid: pid, cpu: IdleCPUWatch.cpuTime(ofTree: pid),
                requests: calls.lastID, inFlight: reading || calls.inFlight, at: .now)
        }
    }

    /// Stops the child of `sample` if it is still this runner's and still
    /// idle: it used `used` of CPU in `over` with no call in flight.
    func stopIdleChild(_ sample: IdleSample, used: Duration, over: Duration) {
        lock.withLock {
            guard let child = supervisor.child, ObjectIdentifier(child) == sample.child, calls.lastID == sample.requests, !reading,
                !calls.inFlight, let plugin = servedPlugins.lazy.compactMap(\.value).first
            else { return }
            func milliseconds(_ duration: Duration) -> Int { Int(duration / .milliseconds(1)) }
            let plugins = servedPlugins.compactMap(\.value).map { "'\($0.info.id)'" }.joined(separator: ", ")
            let what = "(of \(plugins)) used \(milliseconds(used)) ms of CPU in \(milliseconds(over)) ms with no call in flight, more than its \(milliseconds(limits.idleCPU ?? .zero)) ms a second"
            kill(child, Calls.Kill(plugin: plugin, error: Calls.limitError(plugin, .pluginCPUIdle, what), culprit: nil))
        }
    }
}
