import Dispatch
import FoundationEssentials
import GraftHost
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench hotswap`: swap latency, lookups and renders under load, and
/// memory across many swaps, all in one run.
enum HotSwapBench {
    static func run(folder: URL, swaps: Int, memorySwaps: Int, swiftPlugin: String?) throws -> BenchPart {
        var part = BenchPart(name: "hot swap")
        let builds = [
            try BenchPlugin.build(into: folder, name: "build-a.so", defines: ["BENCH_PREFIX=\"a:\""]),
            try BenchPlugin.build(into: folder, name: "build-b.so", defines: ["BENCH_PREFIX=\"b:\""]),
        ]
        let live = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        let path = live.appendingPathComponent("libbench_echo.so").path
        try install(builds[0], at: path)
        let host = GraftHost(configuration: BenchHosts.swapping(cache: folder.appendingPathComponent("cache").path), logger: quietLogger)
        try host.load(pluginAt: path)

        // 1. Latency: from the file complete on disk to the new build serving.
        var latencies: [Double] = []
        for index in 0..<swaps {
            try install(builds[(index + 1) % 2], at: path)
            let event = host.reload(pluginAt: path)
            guard case .swapped = event.outcome else { throw BenchPlugin.CompileError(description: event.summary) }
            latencies.append(Double(event.duration.components.attoseconds) / 1e9 + Double(event.duration.components.seconds) * 1e9)
        }
        part.figure("swap_p50_ms", Stopwatch.percentile(latencies, 50) / 1e6, "ms")
        part.figure("swap_p99_ms", Stopwatch.percentile(latencies, 99) / 1e6, "ms")

        // 2. Two threads resolving and rendering without pause, before and during swaps.
        let load = Load()
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) { [host, load] in
                let reference = ComponentReference(key: "echo")
                while !load.stop.load(ordering: .relaxed) {
                    do {
                        let instance = try host.makeInstance(of: reference, inputs: ["text": "t"])
                        blackHole(try instance.render())
                        instance.close()
                        load.renders.wrappingAdd(1, ordering: .relaxed)
                    } catch {
                        load.failures.wrappingAdd(1, ordering: .relaxed)
                    }
                }
            }
        }
        defer {
            load.stop.store(true, ordering: .relaxed)
            group.wait()
        }
        let quiet = 0.5
        let before = load.renders.load(ordering: .relaxed)
        usleep(useconds_t(quiet * 1e6))
        let quietRate = Double(load.renders.load(ordering: .relaxed) - before) / quiet
        let started = DispatchTime.now().uptimeNanoseconds
        let rendersAtStart = load.renders.load(ordering: .relaxed)
        var swapFailures = 0
        for index in 0..<swaps {
            try install(builds[index % 2], at: path)
            if case .failed = host.reload(pluginAt: path).outcome { swapFailures += 1 }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let busyRate = Double(load.renders.load(ordering: .relaxed) - rendersAtStart) / elapsed
        load.stop.store(true, ordering: .relaxed)
        group.wait()
        part.figure("lookups_during_swaps", Double(load.renders.load(ordering: .relaxed) - rendersAtStart), "")
        part.figure("failed_lookups", Double(load.failures.load(ordering: .relaxed)), "")
        part.figure("failed_swaps", Double(swapFailures), "")
        part.figure("renders_per_s_quiet", quietRate, "/s")
        part.figure("renders_per_s_swapping", busyRate, "/s")
        part.ratio("renders during / before swaps", busyRate / quietRate)

        // 3. Memory: a plain-cc plugin swapped many times should stay flat.
        for index in 0..<20 {
            try install(builds[index % 2], at: path)
            host.reload(pluginAt: path)
        }
        let startRSS = residentBytes()
        for index in 0..<memorySwaps {
            try install(builds[index % 2], at: path)
            host.reload(pluginAt: path)
        }
        let growth = Double(residentBytes() - startRSS)
        part.figure("c_rss_growth_kib", growth / 1024, "KiB after \(memorySwaps) swaps")

        // A Swift plugin is never unloaded: each swap keeps its image mapped.
        if let swiftPlugin, FileManager.default.fileExists(atPath: swiftPlugin) {
            let swiftPath = live.appendingPathComponent("libswift_plugin.so").path
            try FileManager.default.copyItem(atPath: swiftPlugin, toPath: swiftPath)
            try host.load(pluginAt: swiftPath)
            let imageSize = Double((try FileManager.default.attributesOfItem(atPath: swiftPath)[.size] as? Int) ?? 0)
            let count = 20
            let before = residentBytes()
            for _ in 0..<count { host.reload(pluginAt: swiftPath, force: true) }
            let perSwap = Double(residentBytes() - before) / Double(count)
            part.figure("swift_rss_per_swap_kib", perSwap / 1024, "KiB")
            part.figure("swift_image_kib", imageSize / 1024, "KiB")
            part.ratio("swift growth / (image + 64 KiB)", perSwap / (imageSize + 65536), target: "<= 1")
        } else {
            part.notes.append("no Swift plugin given (libDatePicker.so beside graft): Swift swap memory skipped")
        }
        part.notes.append("targets: p50 <= 5 ms, p99 <= 20 ms, 0 failed lookups, C growth within 1024 KiB")
        return part
    }

    /// Puts a build at `path` the way a build tool finishing does: a complete
    /// file renamed into place.
    static func install(_ build: URL, at path: String) throws {
        let staging = path + ".staging"
        unlink(staging)
        try FileManager.default.copyItem(atPath: build.path, toPath: staging)
        guard rename(staging, path) == 0 else {
            throw BenchPlugin.CompileError(description: "rename to \(path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Resident set size from /proc/self/statm (read as a stream: size 0 on disk).
    static func residentBytes() -> Int { statm().resident }

    /// /proc/self/statm's resident and shared pages, in bytes.
    private static func statm() -> (resident: Int, shared: Int) {
        guard let data = FileManager.default.contents(atPath: "/proc/self/statm") else { return (0, 0) }
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard fields.count > 2, let resident = Int(fields[1]), let shared = Int(fields[2]) else { return (0, 0) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (resident * page, shared * page)
    }

    /// Resident pages not shared with any file or other process (statm's
    /// resident minus shared): the host's private memory.
    static func privateResidentBytes() -> Int {
        let (resident, shared) = statm()
        return resident - shared
    }

    final class Load: Sendable {
        let stop = Atomic<Bool>(false)
        let renders = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
    }
}
