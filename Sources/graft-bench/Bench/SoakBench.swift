import FoundationEssentials
import GraftDebugger
import GraftHost
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench soak`: a host run for a while under a mixed load, to see
/// whether anything grows. The host isolates its plugins (one sandboxed child
/// each) and hot-swaps from copies; meanwhile, on threads of their own:
/// instances created, rendered, interacted with, updated and closed in a
/// loop; validators and actions called; the watched echo plugin rebuilt
/// every 3 s (a hot swap); a plugin crashing its child every 10 s (six of
/// them in turn, so none is quarantined); two debugger clients following the
/// action log, reconnecting every 10 s; and a client abusing the debug
/// endpoint every 2 s (a line without its end, garbage, an over-long line,
/// a connection left idle).
///
/// Every `interval` it samples the process: resident memory, descriptors,
/// threads, child processes and zombies among them. It reports the samples,
/// each figure's growth after warm-up (the first fifth) and its slope per
/// hour, against the issue's bounds: memory ≤ 1 MB per hour, descriptors,
/// threads and children flat, no zombie.
enum SoakBench {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Sample {
        var seconds: Double
        var residentMB: Double
        var descriptors: Int
        var threads: Int
        var children: Int
        var zombiePIDs: Set<Int32>
        /// What each child was while alive (its mode and the component whose
        /// runner held it), carried from sample to sample: a zombie's own
        /// command line is empty.
        var known: [Int32: String] = [:]
        /// The lasting zombies (in this sample and the one before: a child
        /// caught between its death and its reaping is not one), each named by
        /// what it was and who holds it now.
        var lasting: [String] = []
        /// The zombies first seen in this sample, named the same way.
        var fresh: [String] = []

        var zombies: Int { lasting.count }
    }

    static func run(folder: URL, minutes: Double) throws -> BenchPart {
        var part = BenchPart(name: "soak")
        let root = folder.appendingPathComponent("soak")
        let plugins = root.appendingPathComponent("plugins"), builds = root.appendingPathComponent("builds")
        for made in [plugins, builds] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        // Two builds of the watched echo plugin, copied over each other: every copy is a swap.
        let buildA = try BenchPlugin.build(into: builds, name: "echo-a.so", defines: ["BENCH_ID=\"bench.soak\"", "BENCH_KEY=\"soak\"", "BENCH_PREFIX=\"a:\""])
        let buildB = try BenchPlugin.build(into: builds, name: "echo-b.so", defines: ["BENCH_ID=\"bench.soak\"", "BENCH_KEY=\"soak\"", "BENCH_PREFIX=\"b:\""])
        let watched = plugins.appendingPathComponent("libbench_soak.so")
        try install(buildA, at: watched)
        let troubles = 6
        for index in 0..<troubles {
            _ = try BenchPlugin.build(
                into: plugins, name: "libbench_trouble\(index).so",
                defines: ["BENCH_ID=\"bench.trouble\(index)\"", "BENCH_KEY=\"trouble\(index)\"", "BENCH_TROUBLE"])
        }
        for source in ["bench_echo.c"] {
            try? FileManager.default.removeItem(at: plugins.appendingPathComponent(source))
            try? FileManager.default.removeItem(at: builds.appendingPathComponent(source))
        }
        // The first-party plugins beside this executable bring validators and actions.
        let beside = URL(fileURLWithPath: SearchPath.executableFolder ?? "/")
        let firstParty = ["libDatePicker.so", "libCheckout.so"].map { beside.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        if firstParty.count < 2 { part.notes.append("the first-party plugins are not beside graft-bench: no validators or actions in the load") }

        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [plugins.path] + firstParty), loadsFromCopies: true, cacheFolder: nil,
                isolation: .perPlugin, limits: IsolationLimits(call: .seconds(1))),
            logger: quietLogger)
        host.loadPlugins()
        guard host.components.contains(where: { $0.contract.key == "soak" }) else {
            throw Failure(description: "the soak's echo plugin did not load: \(host.failures.map(\.error.message))")
        }
        // A log that fills within seconds: what it holds once full stays the same size.
        let log = ActionLog(capacity: 1_000)
        _ = log.recordSwaps(of: host)
        let watcher = try host.watchPluginFolders([plugins.path])
        defer { watcher.stop() }
        // A socket's path must fit in 108 bytes: a short folder of its own in /tmp, whatever TMPDIR is.
        let socketFolder = URL(fileURLWithPath: "/tmp/graft-soak-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: socketFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: socketFolder) }
        let socket = socketFolder.appendingPathComponent("debug.sock").path
        let endpoint = try host.openDebugEndpoint(socketPath: socket, log: log)
        defer { endpoint.close() }

        // Every plugin used once before the first sample, so that each has the
        // child it keeps while idle: the children the load starts later are
        // replacements, and a growth in their number is a leak.
        for index in 0..<troubles {
            if let instance = try? host.makeInstance(of: ComponentReference(key: "trouble\(index)"), inputs: ["text": "ok"]) {
                _ = try? instance.render()
                instance.close()
            }
        }
        if let instance = try? host.makeInstance(of: ComponentReference(key: "soak"), inputs: ["text": "ok"]) {
            _ = try? instance.render()
            instance.close()
        }
        if firstParty.count == 2 {
            _ = try? host.validate("iso_date", value: "2026-12-24")
            _ = try? host.validate("luhn", value: "4242 4242 4242 4242")
        }

        let stop = Atomic(false)
        let counts = Locked([String: Int]())
        let running = Locked(0)
        func loop(_ name: String, every pause: Duration, _ body: @escaping @Sendable (Int) -> Void) {
            running.withLock { $0 += 1 }
            startThread(named: "soak.\(name)") {
                var round = 0
                while !stop.load(ordering: .relaxed) {
                    body(round)
                    round += 1
                    counts.withLock { $0[name, default: 0] += 1 }
                    if pause > .zero { sleep(for: pause) }
                }
                running.withLock { $0 -= 1 }
            }
        }

        loop("instances", every: .milliseconds(2)) { round in
            guard let instance = try? host.makeInstance(of: ComponentReference(key: "soak"), inputs: ["text": .string("r\(round)")], onEvent: { log.record($0) })
            else { return }
            _ = try? instance.render()
            instance.interact("say")
            try? instance.update(inputs: ["text": .string("u\(round)")])
            _ = try? instance.render(as: .html)
            instance.close()
        }
        if firstParty.count == 2 {
            loop("validators", every: .milliseconds(2)) { round in
                _ = try? host.validate("iso_date", value: .string(round % 2 == 0 ? "2026-12-24" : "nope"))
                _ = try? host.validate("luhn", value: "4242 4242 4242 4242")
            }
            loop("actions", every: .milliseconds(5)) { round in
                _ = try? host.invokeAction("format_currency", params: ["amount": .number(Double(round)), "currency": "EUR", "variable": "total"])
            }
        }
        loop("swaps", every: .seconds(3)) { round in
            try? install(round % 2 == 0 ? buildB : buildA, at: watched)
        }
        loop("crashes", every: .seconds(10)) { round in
            guard let instance = try? host.makeInstance(of: ComponentReference(key: "trouble\(round % troubles)"), inputs: ["text": "crash"]) else { return }
            _ = try? instance.render()
            instance.close()
        }
        for follower in 0..<2 {
            loop("followers", every: .zero) { _ in
                follow(socket, for: .seconds(10 + follower))
            }
        }
        loop("abusers", every: .seconds(2)) { round in
            abuse(socket, round)
        }

        // Samples, until the time is up.
        let total = Duration.milliseconds(Int(minutes * 60_000))
        let interval = Duration.milliseconds(max(1000, Int(minutes * 60_000 / 60)))
        let start = ContinuousClock.now
        // Which component's runner holds each child now: a lasting zombie still
        // held is a death nobody noticed; one held by none, a child nobody reaped.
        let holders: @Sendable () -> [Int32: String] = {
            var held: [Int32: String] = [:]
            for component in host.components { if let pid = component.runnerProcessID { held[pid] = "runner of '\(component.contract.key)'" } }
            for validator in host.validators { if let pid = validator.runnerProcessID { held[pid] = "runner of validator '\(validator.contract.name)'" } }
            return held
        }
        var samples = [sample(since: start, holders: holders())]
        while ContinuousClock.now - start < total {
            sleep(for: min(interval, total - (ContinuousClock.now - start)))
            samples.append(sample(since: start, after: samples.last, holders: holders()))
        }
        stop.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(30)
        while running.withLock({ $0 }) > 0, ContinuousClock.now < deadline { sleep(for: .milliseconds(20)) }

        // Every child ended and reaped before the report: nothing of the soak outlives it.
        host.shutDown(grace: .seconds(5))
        report(samples, minutes: minutes, into: &part)
        let done = counts.withLock { $0 }
        part.notes.append(
            "load: \(done["instances"] ?? 0) instance cycles (create, render, interact, update, render, close), \(done["validators"] ?? 0) validator pairs, \(done["actions"] ?? 0) actions, \(done["swaps"] ?? 0) swaps, \(done["crashes"] ?? 0) crashes, \(done["followers"] ?? 0) debugger follows, \(done["abusers"] ?? 0) abusive clients")
        part.notes.append("host: isolated per plugin, sandboxed, swapping from copies; \(host.plugins.count) plugins; an action log of 1,000 records; samples every \(interval)")
        return part
    }

    /// Slopes after warm-up (the first fifth), and the verdicts.
    static func report(_ samples: [Sample], minutes: Double, into part: inout BenchPart) {
        let warm = Array(samples.dropFirst(max(1, samples.count / 5)))
        func slopePerHour(_ value: (Sample) -> Double) -> Double {
            guard warm.count >= 2 else { return 0 }
            let xs = warm.map(\.seconds), ys = warm.map(value)
            let meanX = xs.reduce(0, +) / Double(xs.count), meanY = ys.reduce(0, +) / Double(ys.count)
            let covariance = zip(xs, ys).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
            let variance = xs.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
            return variance > 0 ? covariance / variance * 3600 : 0
        }
        func growth(_ value: (Sample) -> Double) -> Double {
            guard let first = warm.first, let last = warm.last else { return 0 }
            return value(last) - value(first)
        }
        let step = max(1, samples.count / 12)
        for (index, sample) in samples.enumerated() where index % step == 0 || index == samples.count - 1 {
            part.notes.append(
                "t=\(Int(sample.seconds)) s: rss \(BenchPart.format(sample.residentMB)) MB, \(sample.descriptors) descriptors, \(sample.threads) threads, \(sample.children) children, \(sample.zombies) zombies")
        }
        part.figure("rss_after_warm_up_growth", growth { $0.residentMB }, "MB")
        part.figure("descriptors_growth", growth { Double($0.descriptors) }, "")
        part.figure("threads_growth", growth { Double($0.threads) }, "")
        part.figure("children_growth", growth { Double($0.children) }, "")
        part.figure("descriptors_max", Double(samples.map(\.descriptors).max() ?? 0), "")
        part.figure("threads_max", Double(samples.map(\.threads).max() ?? 0), "")
        part.figure("children_max", Double(samples.map(\.children).max() ?? 0), "")
        part.figure("zombies_max", Double(samples.map(\.zombies).max() ?? 0), "")
        let slopes = [
            ("rss", slopePerHour { $0.residentMB }, "MB/h"), ("descriptors", slopePerHour { Double($0.descriptors) }, "/h"),
            ("threads", slopePerHour { Double($0.threads) }, "/h"), ("children", slopePerHour { Double($0.children) }, "/h"),
        ]
        for (name, slope, unit) in slopes { part.figure("\(name)_slope_after_warm_up", slope, unit) }
        let rssSlope = slopes[0].1
        part.notes.append("rss slope after warm-up \(BenchPart.format(rssSlope)) MB/h: \(rssSlope <= 1 ? "meets" : "misses") the target of ≤ 1 MB/h")
        for (name, value) in [("descriptors", growth { Double($0.descriptors) }), ("threads", growth { Double($0.threads) }), ("children", growth { Double($0.children) })] {
            part.notes.append("\(name) after warm-up: \(value == 0 ? "flat" : "\(value > 0 ? "+" : "")\(Int(value)) from the first sample to the last")")
        }
        part.notes.append("zombies left for a sample interval or more: \(samples.map(\.zombies).max() ?? 0) at most (\(samples.map(\.zombiePIDs.count).max() ?? 0) seen at one sample)")
        for sample in samples where !sample.lasting.isEmpty {
            part.notes.append("t=\(Int(sample.seconds)) s: lasting zombies: \(sample.lasting.joined(separator: "; "))")
        }
        // A child caught between its death and its reaping is no fault; which ones were, says where to look if one stays.
        let caught = samples.flatMap { sample in sample.fresh.map { "t=\(Int(sample.seconds)) s \($0)" } }
        if !caught.isEmpty { part.notes.append("zombies seen at one sample: \(caught.prefix(8).joined(separator: "; "))") }
        part.notes.append("\(samples.count) samples over \(minutes) min; warm-up: the first \(samples.count - warm.count)")
    }

    /// Resident memory, descriptors, threads, children and zombies of this process now.
    static func sample(since start: ContinuousClock.Instant, after previous: Sample? = nil, holders: [Int32: String] = [:]) -> Sample {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { line in
            line.split(separator: " ").compactMap { Double($0) }.first
        } ?? 0
        let me = getpid()
        var children = 0
        var zombies: Set<Int32> = []
        var known: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == me else { continue }
            children += 1
            if fields[0] == "Z" {
                zombies.insert(pid)
                known[pid] = previous?.known[pid] ?? "a child never seen alive"
            } else {
                let arguments = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map { [UInt8]($0) } ?? []
                let words = arguments.split(separator: 0).prefix(2).map { String(decoding: $0, as: UTF8.self) }
                let mode = words.count > 1 ? "\(words[0].split(separator: "/").last ?? "") \(words[1])" : (words.first ?? "?")
                known[pid] = holders[pid].map { "\(mode), \($0)" } ?? mode
            }
        }
        func named(_ pid: Int32) -> String {
            "pid \(pid) (\(known[pid] ?? "?"); \(holders[pid].map { "still the \($0)" } ?? "held by no runner"))"
        }
        let lasting = zombies.intersection(previous?.zombiePIDs ?? []).sorted().map(named)
        let fresh = zombies.subtracting(previous?.zombiePIDs ?? []).sorted().map(named)
        return Sample(
            seconds: Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000, residentMB: rss / 1024,
            descriptors: ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count,
            threads: ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count,
            children: children, zombiePIDs: zombies, known: known, lasting: lasting, fresh: fresh)
    }

    /// Puts `build` at `path` in one step (a new file renamed over the old), as a build tool does.
    static func install(_ build: URL, at path: URL) throws {
        let temporary = path.deletingLastPathComponent().appendingPathComponent(".\(path.lastPathComponent).new")
        try? FileManager.default.removeItem(at: temporary)
        try FileManager.default.copyItem(at: build, to: temporary)
        guard rename(temporary.path, path.path) == 0 else { throw Failure(description: "rename: \(String(cString: strerror(errno)))") }
    }

    /// A debugger client following the action log for `duration`, then leaving.
    static func follow(_ socket: String, for duration: Duration) {
        guard let client = try? DebugClient(socketPath: socket) else {
            sleep(for: .milliseconds(100))
            return
        }
        defer { client.close() }
        guard (try? client.hello()) != nil, (try? client.request(["request": "follow"])) != nil else { return }
        let until = ContinuousClock.now + duration
        while ContinuousClock.now < until {
            _ = try? client.nextStreamed(timeout: .milliseconds(200))
        }
    }

    /// One abusive client: a line without its end, garbage, an over-long line, or a connection left idle for a while.
    static func abuse(_ socket: String, _ round: Int) {
        guard let client = try? DebugClient(socketPath: socket) else { return }
        defer { client.close() }
        switch round % 4 {
        case 0: try? client.send(bytes: Array("{\"request\": \"plug".utf8))
        case 1: try? client.send(line: "\u{1}\u{2} not json at all")
        case 2: try? client.send(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [10])
        default: sleep(for: .seconds(1))
        }
    }

    static func sleep(for duration: Duration) {
        let nanoseconds = max(0, duration / .nanoseconds(1))
        var delay = timespec(tv_sec: Int(nanoseconds / 1e9), tv_nsec: Int(nanoseconds.truncatingRemainder(dividingBy: 1e9)))
        var left = timespec()
        while nanosleep(&delay, &left) != 0 && errno == EINTR { delay = left }
    }
}
