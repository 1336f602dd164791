import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftHost

/// `graft bench sandbox`: what the sandbox costs a child and a call.
///
/// Both figures are measured against the same work without the sandbox, in
/// interleaved rounds: starting a runner child up to its hello (the sandbox
/// adds its namespaces, the Landlock rules, the seccomp filter and the
/// listener's hand-over; stopping it is timed apart),
/// and an isolated render round trip (the plugin's render makes no call the
/// filter asks about, so the sandbox should cost it nothing).
enum SandboxBench {
    static func run(folder: URL, iterations: Int, starts: Int) throws -> BenchPart {
        var part = BenchPart(name: "sandbox")
        guard let executable = ScannerLocation.find(configured: nil) else {
            throw BenchPlugin.CompileError(description: "no graft-child beside graft-bench")
        }
        let support = SandboxSupport.current
        part.notes.append("sandbox in force: \(SandboxSupport.summary(mode: .enforced, inProcess: false, status: support))")

        // Child start: spawn, enter the sandbox (or not), hello; then stop and reap.
        let request = ChildSandbox.Request(mode: .bestEffort)
        var withoutNamespaces = request
        withoutNamespaces.namespaces = false
        // The baseline is a bare child; an unsandboxed one as the host starts
        // it (`--sandbox off`) also moves into namespaces of its own, so that
        // what its plugins start dies with it: timed too, for what that costs.
        // The sandboxed child without namespaces is the start before issue 46
        // (no tmpfs, no network, IPC or /proc of its own).
        let kinds: [(sandbox: ChildSandbox.Request?, containing: Bool)] = [
            (nil, false), (request, true), (nil, true), (withoutNamespaces, true),
        ]
        let rounds = 9
        let perRound = max(starts / rounds, 3)
        // A start is timed up to the child's hello, which is what its host
        // waits for; the stop after it (SIGKILL, the reap, the private folder
        // removed), which a host does on a thread of its own, is timed apart.
        var starting = [[Double]](repeating: [], count: kinds.count), stopping = starting
        for kind in kinds { for _ in 0..<20 { _ = Self.startAndStop(executable, sandbox: kind.sandbox, containing: kind.containing) } }
        for _ in 0..<rounds {
            for (which, kind) in kinds.enumerated() {
                for _ in 0..<perRound {
                    guard let (start, stop) = Self.startAndStop(executable, sandbox: kind.sandbox, containing: kind.containing) else { continue }
                    starting[which].append(start)
                    stopping[which].append(stop)
                }
            }
        }
        guard starting.allSatisfy({ !$0.isEmpty }) else { throw BenchPlugin.CompileError(description: "graft-child did not start") }
        let start50 = starting.map(Stopwatch.median), start99 = starting.map(Stopwatch.p99), stop50 = stopping.map(Stopwatch.median)
        part.figure("child_start_unsandboxed_p50_ms", start50[0] / 1e6, "ms (p99 \(BenchPart.format(start99[0] / 1e6)))")
        part.figure("child_start_sandboxed_p50_ms", start50[1] / 1e6, "ms (p99 \(BenchPart.format(start99[1] / 1e6)))")
        part.figure("child_start_contained_p50_ms", start50[2] / 1e6, "ms (p99 \(BenchPart.format(start99[2] / 1e6)); unsandboxed, in its own user and PID namespaces)")
        part.figure("child_start_sandboxed_without_namespaces_p50_ms", start50[3] / 1e6, "ms (p99 \(BenchPart.format(start99[3] / 1e6)); sandboxed, without a tmpfs, network, IPC or /proc of its own)")
        part.figure("child_stop_unsandboxed_p50_ms", stop50[0] / 1e6, "ms (SIGKILL to reaped)")
        part.figure("child_stop_sandboxed_p50_ms", stop50[1] / 1e6, "ms (SIGKILL to reaped, its namespaces torn down and its private folder removed)")
        part.ratio("child start: sandboxed / unsandboxed (p50)", start50[1] / start50[0])
        part.ratio("child start: sandboxed with its namespaces / sandboxed without (p50)", start50[1] / start50[3])
        part.ratio("child start: sandbox off (namespaces) / unsandboxed (p50)", start50[2] / start50[0])
        part.ratio("child stop: sandboxed / unsandboxed (p50)", stop50[1] / stop50[0])

        // An isolated render round trip, each host with its own runner child.
        let plugins = folder.appendingPathComponent("sandbox")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        _ = try BenchPlugin.build(into: plugins, name: "libbench_echo.so", defines: [])
        func host(_ mode: SandboxSettings.Mode) throws -> (GraftHost, ComponentInstance) {
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [plugins.path]), cacheFolder: nil, isolation: .perPlugin,
                    sandbox: SandboxSettings(mode: mode)),
                logger: quietLogger)
            host.loadPlugins()
            let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
            _ = try echo.render()
            return (host, echo)
        }
        let (plainHost, plain) = try host(.off)
        let (sandboxedHost, sandboxed) = try host(.bestEffort)
        defer { _ = (plainHost, sandboxedHost) }
        // Both children on this thread's CPU: the same placement for both, and
        // no wake-up crossing CPUs to blur the difference.
        var saved = graft_cpu_mask_t()
        let cpu = graft_pin_to_current_cpu(&saved)
        defer { if cpu >= 0 { graft_restore_cpu_mask(&saved) } }
        if cpu >= 0 {
            for instance in [plain, sandboxed] {
                // With the sandbox off, the runner's work is done by its fork's fork (see `graft_contain_descendants`).
                if let pid = instance.component.runnerProcessID {
                    for process in [pid] + Self.descendants(of: pid) { _ = graft_pin_to_cpu(process, cpu) }
                }
            }
        } else {
            part.notes.append("could not pin to a CPU: placements are the scheduler's")
        }
        let perCall = max(iterations / 100, 200)
        let (rendering, renderP99) = IsolationBench.interleavedSamples(
            rounds: rounds, perRound: perCall, [{ _ in _ = try? plain.render() }, { _ in _ = try? sandboxed.render() }])
        part.figure("render_unsandboxed_p50_us", rendering[0].p50 / 1000, "µs (p99 \(BenchPart.format(renderP99[0] / 1000)))")
        part.figure("render_sandboxed_p50_us", rendering[1].p50 / 1000, "µs (p99 \(BenchPart.format(renderP99[1] / 1000)))")
        part.ratio("isolated render: sandboxed / unsandboxed (p50)", rendering[1].p50 / rendering[0].p50)
        if cpu >= 0 { graft_restore_cpu_mask(&saved) }
        try Self.flood(into: &part, plugins: folder.appendingPathComponent("flood"), echo: sandboxed, rounds: rounds, perRound: perCall)
        return part
    }

    /// The monitor under a flood: the sandboxed render's p99 while no plugin
    /// floods, and while another plugin's four threads make a refused system
    /// call as fast as the host answers them, in interleaved rounds (a host
    /// with the flooder is started and shut down each round).
    private static func flood(into part: inout BenchPart, plugins: URL, echo: ComponentInstance, rounds: Int, perRound: Int) throws {
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        _ = try BenchPlugin.build(
            into: plugins, name: "libbench_flood.so", defines: ["BENCH_FLOOD", #"BENCH_ID="bench.flood""#, #"BENCH_KEY="flood""#])
        var quiet: [Double] = [], flooded: [Double] = [], ratios: [Double] = []
        var refusals = 0.0, seconds = 0.0
        func sample(_ count: Int) -> [Double] {
            (0..<count).map { _ in
                let start = ContinuousClock.now
                _ = try? echo.render()
                let elapsed = (ContinuousClock.now - start).components
                return Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
            }
        }
        func p99(_ samples: [Double]) -> Double { samples.sorted()[min(samples.count - 1, samples.count * 99 / 100)] }
        for _ in 0..<rounds {
            var limits = IsolationLimits()
            limits.idleCPU = nil  // the flooder is busy between its calls on purpose
            let floodHost = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [plugins.path]), cacheFolder: nil, isolation: .perPlugin, limits: limits,
                    sandbox: SandboxSettings(mode: .bestEffort)),
                logger: quietLogger)
            floodHost.loadPlugins()
            // Half the quiet samples before the flood, half after: both sides see the same drift.
            let before = sample(perRound / 2)
            guard let flooder = try? floodHost.makeInstance(of: ComponentReference(key: "flood"), inputs: ["text": "x"]) else {
                throw BenchPlugin.CompileError(description: "the flooding plugin did not start")
            }
            let counted = Double((try? flooder.render().text).flatMap(Int.init) ?? 0)
            let started = ContinuousClock.now
            let during = sample(perRound)
            refusals += Double((try? flooder.render().text).flatMap(Int.init) ?? 0) - counted
            seconds += (ContinuousClock.now - started) / .seconds(1)
            floodHost.shutDown(grace: .milliseconds(100))
            let after = sample(perRound / 2)
            quiet += before + after
            flooded += during
            ratios.append(p99(during) / p99(before + after))
        }
        part.figure("render_sandboxed_quiet_p99_us", p99(quiet) / 1000, "µs (p50 \(BenchPart.format(quiet.sorted()[quiet.count / 2] / 1000)))")
        part.figure("render_sandboxed_flooded_p99_us", p99(flooded) / 1000, "µs (p50 \(BenchPart.format(flooded.sorted()[flooded.count / 2] / 1000)); another plugin made \(Int(refusals / max(seconds, 0.001))) refused calls a second)")
        part.ratio("isolated render under another plugin's flood of refused calls / quiet (p99, median of rounds)", ratios.sorted()[ratios.count / 2])
    }

    /// Spawn and hello, then SIGKILL and reap (and the private folder
    /// removed: no exit to wait for, whose polling would blur the figure),
    /// each timed in nanoseconds; nil when the child did not start.
    private static func startAndStop(_ executable: String, sandbox: ChildSandbox.Request?, containing: Bool) -> (Double, Double)? {
        let started = DispatchTime.now().uptimeNanoseconds
        guard let child = try? ChildProcess.startGraftChild(
            executable: executable, arguments: ["serve"], sandbox: sandbox, containingDescendants: containing, onOutput: { _ in })
        else { return nil }
        let ready = DispatchTime.now().uptimeNanoseconds
        child.stop()
        return (Double(ready - started), Double(DispatchTime.now().uptimeNanoseconds - ready))
    }

    /// The processes `pid` started, and theirs (its main thread's children, down the line).
    private static func descendants(of pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let children = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t(String($0)) }
        return children + children.flatMap { descendants(of: $0) }
    }
}
