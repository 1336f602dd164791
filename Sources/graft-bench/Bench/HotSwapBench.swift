import Dispatch
import FoundationEssentials
import GraftHost
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench hotswap`:
///   1. through the watcher: a rebuilt file renamed into the watched folder
///      (the file is complete) until the new build serves (its swap event,
///      after which a new instance and the live one, moved across, render
///      the new build), with a live instance each time; the watcher's
///      debounce is part of it and is reported beside it;
///   2. `reload()` alone, the host's part without detection or debounce;
///   3. two threads creating, rendering and closing instances through swaps:
///      lookups that failed (none may);
///   4. memory across many swaps of a plain-cc plugin, and per swap of a
///      Swift plugin (never unloaded) against its mapped image.
enum HotSwapBench {
    static func run(folder: URL, swaps: Int, watchedSwaps: Int, memorySwaps: Int, swiftPlugin: String?) throws -> BenchPart {
        var part = BenchPart(name: "hot swap")
        let builds = [
            try BenchPlugin.build(into: folder, name: "build-a.so", defines: ["BENCH_PREFIX=\"a:\""]),
            try BenchPlugin.build(into: folder, name: "build-b.so", defines: ["BENCH_PREFIX=\"b:\""]),
        ]
        let prefixes = ["a:", "b:"]
        let live = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        let path = live.appendingPathComponent("libbench_echo.so").path
        try install(builds[0], at: path)
        // The build at `path` now; each swap installs the other one.
        var current = 0
        func other() -> Int {
            current = 1 - current
            return current
        }
        let host = GraftHost(configuration: BenchHosts.swapping(cache: folder.appendingPathComponent("cache").path), logger: quietLogger)
        try host.load(pluginAt: path)

        // 1. Through the watcher, with a live instance moving across each time.
        let debounce = Duration.milliseconds(50)
        let swapped = Mutex<(count: Int, at: UInt64)>((0, 0))
        let token = host.addSwapObserver { event in
            guard case .swapped = event.outcome else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            swapped.withLock { $0 = ($0.count + 1, now) }
        }
        defer { host.removeSwapObserver(token) }
        let watcher = try host.watchPluginFolders([live.path], debounce: debounce)
        defer { watcher.stop() }
        let instance = try host.makeInstance(of: "echo", inputs: ["text": "t"])
        defer { instance.close() }
        var throughWatcher: [Double] = []
        for index in 0..<watchedSwaps {
            let build = other()
            let before = swapped.withLock { $0.count }
            try install(builds[build], at: path)
            let ready = DispatchTime.now().uptimeNanoseconds
            let deadline = ContinuousClock.now + .seconds(10)
            var at: UInt64?
            while ContinuousClock.now < deadline {
                let (count, time) = swapped.withLock { $0 }
                if count > before { at = time; break }
                usleep(200)
            }
            guard let at else { throw BenchPlugin.CompileError(description: "swap \(index + 1) through the watcher did not happen within 10 s") }
            let fresh = try host.makeInstance(of: "echo", inputs: ["text": "t"])
            let served = try fresh.render().text
            fresh.close()
            guard served == prefixes[build] + "t", try instance.render().text == prefixes[build] + "t" else {
                throw BenchPlugin.CompileError(description: "after swap \(index + 1) the new build does not serve (\(served))")
            }
            throughWatcher.append(Double(at - ready))
        }
        watcher.stop()
        let debounceNs = Double(debounce.components.attoseconds) / 1e9 + Double(debounce.components.seconds) * 1e9
        part.figure("watched_swap_p50_ms", Stopwatch.percentile(throughWatcher, 50) / 1e6, "ms")
        part.figure("watched_swap_p99_ms", Stopwatch.percentile(throughWatcher, 99) / 1e6, "ms")
        part.figure("watcher_debounce_ms", debounceNs / 1e6, "ms")
        part.figure("watched_swap_past_debounce_p99_ms", (Stopwatch.percentile(throughWatcher, 99) - debounceNs) / 1e6, "ms")

        // 2. reload() alone: the host's part.
        var latencies: [Double] = []
        for _ in 0..<swaps {
            try install(builds[other()], at: path)
            let event = host.reload(pluginAt: path)
            guard case .swapped = event.outcome else { throw BenchPlugin.CompileError(description: event.summary) }
            latencies.append(Double(event.duration.components.attoseconds) / 1e9 + Double(event.duration.components.seconds) * 1e9)
        }
        part.figure("reload_p50_ms", Stopwatch.percentile(latencies, 50) / 1e6, "ms")
        part.figure("reload_p99_ms", Stopwatch.percentile(latencies, 99) / 1e6, "ms")

        // 3. Two threads resolving and rendering without pause while swaps happen.
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
        let rendersAtStart = load.renders.load(ordering: .relaxed)
        var swapFailures = 0
        for _ in 0..<swaps {
            try install(builds[other()], at: path)
            if case .failed = host.reload(pluginAt: path).outcome { swapFailures += 1 }
        }
        load.stop.store(true, ordering: .relaxed)
        group.wait()
        part.figure("lookups_during_swaps", Double(load.renders.load(ordering: .relaxed) - rendersAtStart), "")
        part.figure("failed_lookups", Double(load.failures.load(ordering: .relaxed)), "")
        part.figure("failed_swaps", Double(swapFailures), "")

        // 4. Memory: a plain-cc plugin swapped many times should stay flat.
        for _ in 0..<20 {
            try install(builds[other()], at: path)
            host.reload(pluginAt: path)
        }
        let startRSS = residentBytes()
        for _ in 0..<memorySwaps {
            try install(builds[other()], at: path)
            host.reload(pluginAt: path)
        }
        let growth = Double(residentBytes() - startRSS)
        part.figure("c_rss_growth_kib", growth / 1024, "KiB after \(memorySwaps) swaps")

        // A Swift plugin is never unloaded: each swap keeps its image mapped.
        if let swiftPlugin, FileManager.default.fileExists(atPath: swiftPlugin) {
            let swiftPath = live.appendingPathComponent("libswift_plugin.so").path
            try FileManager.default.copyItem(atPath: swiftPlugin, toPath: swiftPath)
            let info = try host.load(pluginAt: swiftPath)
            var status = stat()
            let fileSize = stat(swiftPath, &status) == 0 ? Double(status.st_size) : 0
            // What the image occupies once mapped (every mapping of its file), not the file's size.
            let mapped = Double(mappedBytes(of: host.plugins.first { $0.path == info.path }?.imagePath ?? swiftPath))
            let count = 20
            let before = residentBytes()
            for _ in 0..<count { host.reload(pluginAt: swiftPath, force: true) }
            let perSwap = Double(residentBytes() - before) / Double(count)
            part.figure("swift_rss_per_swap_kib", perSwap / 1024, "KiB")
            part.figure("swift_image_mapped_kib", mapped / 1024, "KiB")
            part.figure("swift_image_file_kib", fileSize / 1024, "KiB")
            part.ratio("swift growth per swap / (mapped image + 64 KiB)", perSwap / (mapped + 65536))
        } else {
            part.notes.append("no Swift plugin given (libDatePicker.so beside graft): Swift swap memory skipped")
        }
        part.notes.append(
            "targets: through the watcher p99 <= debounce + 5 ms; 0 failed lookups; C growth within 1024 KiB; \(watchedSwaps) swaps through the watcher, \(swaps) by reload()")
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

    /// The bytes of every mapping of `path` in this process (/proc/self/maps,
    /// read to its end: /proc reports a size of 0; a private copy the image
    /// store has unlinked shows as "PATH (deleted)").
    static func mappedBytes(of path: String) -> Int {
        guard let maps = try? BoundedFile.text(at: "/proc/self/maps", what: "the memory map", code: .permissionDenied) else { return 0 }
        return maps.split(separator: "\n").reduce(0) { total, line in
            guard line.hasSuffix(" " + path) || line.hasSuffix(" " + path + " (deleted)"),
                let range = line.split(separator: " ").first
            else { return total }
            let bounds = range.split(separator: "-").compactMap { Int($0, radix: 16) }
            return bounds.count == 2 ? total + bounds[1] - bounds[0] : total
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
