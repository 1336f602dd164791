import Dispatch
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftHost
import Synchronization

/// `graft bench components`: one component's cycle (create from inputs,
/// render as text, the `say` interaction that emits one event, destroy) and
/// a render alone on a live instance, through the host:
///   abi         the C bench plugin, through the host (lookup, contract checks, copies, the action of graft.h);
///   swift       the same component written with GraftKit and registered in the same host (`SwiftEcho`): the
///               same lookup, checks and C tables, no shared library;
///   floor       the C plugin driven through graft.h by a minimal C host (`ComponentFloor`), in its own process.
/// Rounds interleave the three (alternating which goes first); each figure
/// is the median over rounds with its p99, each ratio the median of the
/// rounds' own ratios. Then the action log's cost per emit.
enum ComponentBench {
    static func run(folder: URL, iterations: Int, rounds: Int = 9) throws -> BenchPart {
        var part = BenchPart(name: "component create + render + emit")
        let library = try BenchPlugin.build(into: folder)
        let floorProgram = try ComponentFloor.build(into: folder)
        let host = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
        try host.load(pluginAt: library.path)
        let registration = try host.registerCustomComponent(key: "swift_echo", definition: SwiftEcho.definition)
        defer { registration.remove() }
        let emitted = Atomic<Int>(0)
        let inputs: [String: GraftValue] = ["text": "hello"]

        func cycle(_ reference: ComponentReference) -> (Int) -> Void {
            { _ in
                guard let instance = try? host.makeInstance(
                    of: reference, id: "bench", inputs: inputs,
                    onEvent: { _ in emitted.wrappingAdd(1, ordering: .relaxed) })
                else { return }
                blackHole(try? instance.render())
                instance.interact("say")
                instance.close()
            }
        }
        let abiCycle = cycle("echo"), swiftCycle = cycle("swift_echo")
        for index in 0..<max(iterations / 10, 1) {
            abiCycle(index)
            swiftCycle(index)
        }
        guard emitted.load(ordering: .relaxed) == 2 * max(iterations / 10, 1) else {
            throw DiscoveryBench.Failure(description: "a cycle did not emit exactly once")
        }
        var abi: [Double] = [], swift: [Double] = [], floor: [Double] = []
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? [0, 1, 2] : [2, 1, 0]
            for side in order {
                switch side {
                case 0: abi.append(time(iterations, abiCycle))
                case 1: swift.append(time(iterations, swiftCycle))
                default: floor.append(try ComponentFloor.run(floorProgram, plugin: library.path, iterations: iterations))
                }
            }
        }
        part.figure("abi_cycle_ns", Stopwatch.median(abi))
        part.figure("abi_cycle_p99_ns", Stopwatch.p99(abi))
        part.figure("swift_in_host_cycle_ns", Stopwatch.median(swift))
        part.figure("swift_in_host_cycle_p99_ns", Stopwatch.p99(swift))
        part.figure("floor_cycle_ns", Stopwatch.median(floor))
        part.figure("floor_cycle_p99_ns", Stopwatch.p99(floor))
        part.ratio("abi / floor (cycle)", Stopwatch.median(zip(abi, floor).map(/)))
        part.ratio("abi / swift in host (cycle)", Stopwatch.median(zip(abi, swift).map(/)))

        let abiInstance = try host.makeInstance(of: "echo", inputs: inputs)
        let swiftInstance = try host.makeInstance(of: "swift_echo", inputs: inputs)
        let render = Stopwatch.compare(iterations: iterations * 4, [
            { _ in blackHole(try? abiInstance.render()) },
            { _ in blackHole(try? swiftInstance.render()) },
        ])
        abiInstance.close()
        swiftInstance.close()
        part.figure("abi_render_ns", render.nanoseconds[0])
        part.figure("swift_in_host_render_ns", render.nanoseconds[1])
        part.ratio("abi / swift in host (render)", 1 / render.ratios[1])

        // The debugger's action log left on: the same emit, recorded and not.
        let logged = try ActionLogBenchmark.run(
            host: host, component: "echo", inputs: inputs, interaction: "say", iterations: iterations * 4)
        part.figure("emit_ns", logged.withoutNs)
        part.figure("emit_logged_ns", logged.withNs)
        part.ratio("emit with action log / without", logged.ratio)
        part.notes.append("\(rounds) rounds of \(iterations) cycles; the floor runs in its own process and times its own loop")
        return part
    }

    /// Nanoseconds per call of `body` over `iterations` calls.
    private static func time(_ iterations: Int, _ body: (Int) -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<iterations { body(index) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
    }
}
