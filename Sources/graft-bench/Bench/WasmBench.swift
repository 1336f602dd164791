import Dispatch
import FoundationEssentials
import GraftCommandLine
import GraftHost

#if canImport(Glibc)
import Glibc
#endif
import CGraftSystem

/// `graft bench wasm`: the bench plugin's `echo` (BenchPlugin's C source)
/// built twice from that one source, as a `.so` with `cc` and as a `.wasm`
/// with clang's wasm32-wasi target and graft_wasm_bridge.c, then:
///   render      on a live instance: the .wasm in process (WasmKit), the .so in process (the native floor), and
///               the .so isolated in its sandboxed child, pinned to this thread's CPU; interleaved rounds;
///   load        its parts (parse, instantiate, describe) timed one by one, and `load(pluginAt:)` of a fresh copy
///               of the .wasm (trust checks, parse, instantiate, describe, register);
///   hot swap    `reload(pluginAt:force:)` with a live instance moving across, .wasm against the .so as a host
///               runs it by default (isolated in its sandboxed child) and in process, from sealed copies as a host
///               that watches its folders loads, taking turns.
enum WasmBench {
    static func run(folder: URL, iterations: Int, swaps: Int) throws -> BenchPart {
        var part = BenchPart(name: "WebAssembly plugins (WasmKit) against the same C as a .so")
        let root = folder.appendingPathComponent("wasm")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let native = try BenchPlugin.build(into: root, name: "libbench_echo.so")
        let wasm = try build(into: root)

        // Render on a live instance, three ways.
        let nativeHost = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
        try nativeHost.load(pluginAt: native.path)
        let wasmHost = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
        try wasmHost.load(pluginAt: wasm.path)
        // Hardware bounds checks, to measure against software ones: this installs WasmKit's process-wide
        // SIGSEGV/SIGBUS handler in the bench's process, which no host does.
        var hardwareConfiguration = BenchHosts.inProcess()
        hardwareConfiguration.wasmHardwareBounds = true
        let hardwareHost = GraftHost(configuration: hardwareConfiguration, logger: quietLogger)
        try hardwareHost.load(pluginAt: wasm.path)
        let isolatedFolder = root.appendingPathComponent("isolated")
        try FileManager.default.createDirectory(at: isolatedFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: native, to: isolatedFolder.appendingPathComponent(native.lastPathComponent))
        let isolatedHost = GraftHost(
            configuration: BenchHosts.isolated(folder: isolatedFolder.path, cache: root.appendingPathComponent("cache").path),
            logger: quietLogger)
        isolatedHost.loadPlugins()
        let inputs: [String: GraftValue] = ["text": "hi"]
        let nativeEcho = try nativeHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let wasmEcho = try wasmHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let hardwareEcho = try hardwareHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let isolatedEcho = try isolatedHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let expected = try nativeEcho.render().text
        guard try wasmEcho.render().text == expected, try isolatedEcho.render().text == expected, try hardwareEcho.render().text == expected else {
            throw DiscoveryBench.Failure(description: "the .wasm, the .so and the isolated .so render differently")
        }
        var saved = graft_cpu_mask_t()
        let cpu = graft_pin_to_current_cpu(&saved)
        defer { if cpu >= 0 { graft_restore_cpu_mask(&saved) } }
        if cpu >= 0 {
            _ = graft_pin_to_cpu(try IsolationBench.isolatedChildPID(of: isolatedEcho), cpu)
        } else {
            part.notes.append("could not pin to a CPU: the isolated child runs where the scheduler puts it")
        }
        let (samples, p99s) = IsolationBench.interleavedSamples(rounds: 9, perRound: max(iterations / 100, 200), [
            { _ in _ = try? wasmEcho.render() },
            { _ in _ = try? nativeEcho.render() },
            { _ in _ = try? isolatedEcho.render() },
            { _ in _ = try? hardwareEcho.render() },
        ])
        if cpu >= 0 { graft_restore_cpu_mask(&saved) }
        part.figure("wasm_render_p50_us", samples[0].p50 / 1000, "µs (p99 \(BenchPart.format(p99s[0] / 1000)))")
        part.figure("native_render_p50_us", samples[1].p50 / 1000, "µs (in process; p99 \(BenchPart.format(p99s[1] / 1000)))")
        part.figure("isolated_render_p50_us", samples[2].p50 / 1000, "µs (sandboxed child, same CPU; p99 \(BenchPart.format(p99s[2] / 1000)))")
        part.ratio("wasm render / isolated (p50)", samples[0].p50 / samples[2].p50)
        part.ratio("wasm render / native (p50)", samples[0].p50 / samples[1].p50)
        part.figure("wasm_hardware_bounds_render_p50_us", samples[3].p50 / 1000, "µs (guard pages and a signal handler; p99 \(BenchPart.format(p99s[3] / 1000)))")
        part.ratio("wasm render, hardware / software bounds (p50)", samples[3].p50 / samples[0].p50)

        // A load's parts: parse, instantiate (memory, imports, _initialize), describe (graft_entry runs guest code).
        let bytes = Array(try Data(contentsOf: wasm))
        var parts: [[Double]] = [[], [], []]
        for _ in 0..<40 {
            let (parse, instantiate, describe) = try PluginInspection.timeGuestLoad(bytes, logger: quietLogger)
            for (index, duration) in [parse, instantiate, describe].enumerated() { parts[index].append(Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9) }
        }
        let instantiateTime = Stopwatch.median(parts[1])
        part.figure("wasm_parse_p50_ms", Stopwatch.median(parts[0]) / 1e6, "ms (the module's \(bytes.count) bytes)")
        part.figure("wasm_instantiate_p50_ms", instantiateTime / 1e6, "ms (its memory, its imports, _initialize; p99 \(BenchPart.format(Stopwatch.p99(parts[1]) / 1e6)))")
        part.figure("wasm_describe_p50_ms", Stopwatch.median(parts[2]) / 1e6, "ms (graft_entry: WasmKit translates each guest function it runs, on first use)")
        part.ratio("wasm instantiate (p50) / 1 ms", instantiateTime / 1e6)

        // Instantiate: a fresh copy each time (a new inode), into a host of its own (each copy declares the same id).
        let copies = root.appendingPathComponent("copies")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        var wasmLoads: [Double] = []
        for index in 0..<40 {
            let copy = copies.appendingPathComponent("\(index)-\(wasm.lastPathComponent)")
            try FileManager.default.copyItem(at: wasm, to: copy)
            let host = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
            let start = DispatchTime.now().uptimeNanoseconds
            guard (try? host.load(pluginAt: copy.path)) != nil else { throw DiscoveryBench.Failure(description: "a copy of the .wasm did not load") }
            wasmLoads.append(Double(DispatchTime.now().uptimeNanoseconds - start))
        }
        let loadTime = Stopwatch.median(wasmLoads)
        part.figure("wasm_load_p50_ms", loadTime / 1e6, "ms (trust checks, parse, instantiate, describe, register; p99 \(BenchPart.format(Stopwatch.p99(wasmLoads) / 1e6)))")
        part.ratio("wasm load: file to registered (p50) / 1 ms", loadTime / 1e6)

        // Hot swap with a live instance, .wasm and .so taking turns.
        let (wasmSwap, isolatedSwap, nativeSwap) = try swapTimes(wasm: wasm, native: native, folder: root.appendingPathComponent("swaps"), swaps: swaps)
        part.figure("wasm_swap_p50_ms", wasmSwap / 1e6, "ms (reload with a live instance moving across)")
        part.figure("isolated_swap_p50_ms", isolatedSwap / 1e6, "ms (the same for the .so isolated in its sandboxed child, a host's default)")
        part.figure("native_swap_p50_ms", nativeSwap / 1e6, "ms (the same for the .so in process)")
        part.ratio("wasm swap / isolated (p50)", wasmSwap / isolatedSwap)
        part.ratio("wasm swap / native (p50)", wasmSwap / nativeSwap)
        part.notes.append("the same C source both ways; the .wasm through graft_wasm_bridge.c; WasmKit with software bounds checks and fuel metering")
        return part
    }

    /// BenchPlugin's source as a .wasm, with the bridge: clang-14 (or GRAFT_WASM_CC) for wasm32-wasi.
    static func build(into folder: URL) throws -> URL {
        guard let include = GraftHeader.includeFolder() else { throw BenchPlugin.CompileError(description: "graft.h not found") }
        let source = folder.appendingPathComponent("bench_echo.c")
        if !FileManager.default.fileExists(atPath: source.path) { try Data(BenchPlugin.source.utf8).write(to: source) }
        let output = folder.appendingPathComponent("bench_echo.wasm")
        let compiler = ProcessInfo.processInfo.environment["GRAFT_WASM_CC"] ?? "clang-14"
        let arguments = [
            compiler, "--target=wasm32-wasi", "-mexec-model=reactor", "-O2", "-std=c11", "-I", include, source.path,
            include + "/graft_wasm_bridge.c", "-o", output.path,
        ]
        guard let pid = try? BenchProcess.start("/usr/bin/env", arguments), BenchProcess.wait(pid, until: .now + .seconds(120)) == 0 else {
            throw BenchPlugin.CompileError(description: "\(compiler) failed to build the bench plugin for wasm32-wasi (Scripts/prerequisites.sh installs clang-14 and wasi-libc)")
        }
        chmod(output.path, 0o644)
        return output
    }

    /// Median reload times (ns) of the .wasm, the .so isolated and the .so in process, each host swapping its own file with one live instance.
    private static func swapTimes(wasm: URL, native: URL, folder: URL, swaps: Int) throws -> (Double, Double, Double) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var hosts: [(host: GraftHost, path: String, instance: ComponentInstance)] = []
        for (index, (source, isolation)) in [(wasm, Isolation.inProcess), (native, .perPlugin), (native, .inProcess)].enumerated() {
            let path = folder.appendingPathComponent("\(index)-\(source.lastPathComponent)").path
            try FileManager.default.copyItem(atPath: source.path, toPath: path)
            var configuration = BenchHosts.swapping(cache: folder.appendingPathComponent("cache-\(index)").path)
            configuration.isolation = isolation
            let host = GraftHost(configuration: configuration, logger: quietLogger)
            try host.load(pluginAt: path)
            hosts.append((host, path, try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])))
        }
        var times: [[Double]] = [[], [], []]
        for _ in 0..<max(swaps / 10, 5) {
            for which in [0, 1, 2].shuffled() {
                let (host, path, _) = hosts[which]
                let start = DispatchTime.now().uptimeNanoseconds
                let event = host.reload(pluginAt: path, force: true)
                times[which].append(Double(DispatchTime.now().uptimeNanoseconds - start))
                guard case .swapped = event.outcome else { throw DiscoveryBench.Failure(description: "a swap failed: \(event)") }
            }
        }
        for entry in hosts { blackHole(try? entry.instance.render()) }
        return (Stopwatch.median(times[0]), Stopwatch.median(times[1]), Stopwatch.median(times[2]))
    }
}
