import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftHost
import Synchronization

/// `graft bench components`: one component's create + render + emit + destroy
/// across the C ABI (host instance, C plugin) against the same component as
/// an in-process Swift closure, and a render alone on a live instance.
enum ComponentBench {
    static func run(folder: URL, iterations: Int) throws -> BenchPart {
        var part = BenchPart(name: "component create + render + emit")
        let library = try BenchPlugin.build(into: folder)
        let host = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
        try host.load(pluginAt: library.path)
        let reference = ComponentReference(key: "echo")
        let emitted = Atomic<Int>(0)
        let inputs: [String: GraftValue] = ["text": "hello"]

        // Each pair timed in interleaved rounds; ratios are per-round medians.
        let cycle = Stopwatch.compare(iterations: iterations, [
            { _ in
                guard let instance = try? host.makeInstance(
                    of: reference, id: "bench", inputs: inputs,
                    onEvent: { _ in emitted.wrappingAdd(1, ordering: .relaxed) })
                else { return }
                blackHole(try? instance.render())
                instance.interact("say")
                instance.close()
            },
            { _ in
                let echo = SwiftEcho(inputs: ["text": "hello"], emit: { _, _ in emitted.wrappingAdd(1, ordering: .relaxed) })
                blackHole(echo.render())
                echo.say()
            },
        ])
        let instance = try host.makeInstance(of: reference, inputs: inputs)
        let echo = SwiftEcho(inputs: ["text": "hello"], emit: { _, _ in })
        let render = Stopwatch.compare(iterations: iterations * 4, [
            { _ in blackHole(try? instance.render()) },
            { _ in blackHole(echo.render()) },
        ])
        instance.close()
        // The debugger's action log left on: the same emit, recorded and not.
        let logged = try ActionLogBenchmark.run(
            host: host, component: reference, inputs: inputs, interaction: "say", iterations: iterations * 4)

        part.figure("abi_cycle_ns", cycle.nanoseconds[0])
        part.figure("swift_cycle_ns", cycle.nanoseconds[1])
        part.figure("abi_render_ns", render.nanoseconds[0])
        part.figure("swift_render_ns", render.nanoseconds[1])
        // The Swift side is the baseline: its ratio to the ABI side, inverted.
        part.ratio("abi / swift (cycle)", 1 / cycle.ratios[1])
        part.ratio("abi / swift (render)", 1 / render.ratios[1])
        part.figure("emit_ns", logged.withoutNs)
        part.figure("emit_logged_ns", logged.withNs)
        part.ratio("emit with action log / without", logged.ratio, target: "<= 1.2")
        return part
    }
}
