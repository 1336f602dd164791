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
///   instantiate `load(pluginAt:)` of a fresh copy of the .wasm (trust checks, parse, instantiate, describe,
///               register), against the same of the .so in process;
///   hot swap    `reload(pluginAt:force:)` with a live instance moving across, .wasm against .so (in process,
///               from sealed copies, as a host that watches its folders loads), taking turns.
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
        let isolatedFolder = root.appendingPathComponent("isolated")
        try FileManager.default.createDirectory(at: isolatedFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: native, to: isolatedFolder.appendingPathComponent(native.lastPathComponent))
        let isolatedHost = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [isolatedFolder.path]), cacheFolder: root.appendingPathComponent("cache").path,
                isolation: .perPlugin),
            logger: quietLogger)
        isolatedHost.loadPlugins()
        let inputs: [String: GraftValue] = ["text": "hi"]
        let nativeEcho = try nativeHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let wasmEcho = try wasmHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let isolatedEcho = try isolatedHost.makeInstance(of: ComponentReference(key: "echo"), inputs: inputs)
        let expected = try nativeEcho.render().text
        guard try wasmEcho.render().text == expected, try isolatedEcho.render().text == expected else {
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
        ])
        if cpu >= 0 { graft_restore_cpu_mask(&saved) }
        part.figure("wasm_render_p50_us", samples[0].p50 / 1000, "µs (p99 \(BenchPart.format(p99s[0] / 1000)))")
        part.figure("native_render_p50_us", samples[1].p50 / 1000, "µs (in process; p99 \(BenchPart.format(p99s[1] / 1000)))")
        part.figure("isolated_render_p50_us", samples[2].p50 / 1000, "µs (sandboxed child, same CPU; p99 \(BenchPart.format(p99s[2] / 1000)))")
        part.ratio("wasm render / isolated (p50)", samples[0].p50 / samples[2].p50)
        part.ratio("wasm render / native (p50)", samples[0].p50 / samples[1].p50)

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
        let instantiate = Stopwatch.median(wasmLoads)
        part.figure("wasm_load_p50_ms", instantiate / 1e6, "ms (parse, instantiate, describe, register; p99 \(BenchPart.format(Stopwatch.p99(wasmLoads) / 1e6)))")
        part.ratio("wasm load (p50) / 1 ms", instantiate / 1e6)

        // Hot swap with a live instance, .wasm and .so taking turns.
        let (wasmSwap, nativeSwap) = try swapTimes(wasm: wasm, native: native, folder: root.appendingPathComponent("swaps"), swaps: swaps)
        part.figure("wasm_swap_p50_ms", wasmSwap / 1e6, "ms (reload with a live instance moving across)")
        part.figure("native_swap_p50_ms", nativeSwap / 1e6, "ms (the same for the .so, in process)")
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

    /// Median reload times (ns) of the .wasm and the .so, each host swapping its own file with one live instance.
    private static func swapTimes(wasm: URL, native: URL, folder: URL, swaps: Int) throws -> (Double, Double) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var hosts: [(host: GraftHost, path: String, instance: ComponentInstance)] = []
        for (index, source) in [wasm, native].enumerated() {
            let path = folder.appendingPathComponent(source.lastPathComponent).path
            try FileManager.default.copyItem(atPath: source.path, toPath: path)
            let host = GraftHost(configuration: BenchHosts.swapping(cache: folder.appendingPathComponent("cache-\(index)").path), logger: quietLogger)
            try host.load(pluginAt: path)
            hosts.append((host, path, try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])))
        }
        var times: [[Double]] = [[], []]
        for round in 0..<max(swaps / 10, 5) {
            for which in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                let (host, path, _) = hosts[which]
                let start = DispatchTime.now().uptimeNanoseconds
                let event = host.reload(pluginAt: path, force: true)
                times[which].append(Double(DispatchTime.now().uptimeNanoseconds - start))
                guard case .swapped = event.outcome else { throw DiscoveryBench.Failure(description: "a swap failed: \(event)") }
            }
        }
        for entry in hosts { blackHole(try? entry.instance.render()) }
        return (Stopwatch.median(times[0]), Stopwatch.median(times[1]))
    }
}
