import Foundation
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
        let host = GraftHost(searchPath: SearchPath(folders: []), logger: quietLogger)
        try host.load(pluginAt: library.path)
        let reference = ComponentReference(key: "echo")
        let emitted = Atomic<Int>(0)
        let inputs: [String: GraftValue] = ["text": "hello"]

        let abi = Stopwatch.nanosecondsPerOperation(iterations: iterations) { _ in
            guard let instance = try? host.makeInstance(
                of: reference, id: "bench", inputs: inputs,
                onEvent: { _ in emitted.wrappingAdd(1, ordering: .relaxed) })
            else { return }
            blackHole(try? instance.render())
            instance.interact("say")
            instance.close()
        }
        let swift = Stopwatch.nanosecondsPerOperation(iterations: iterations) { _ in
            let echo = SwiftEcho(inputs: ["text": "hello"], emit: { _, _ in emitted.wrappingAdd(1, ordering: .relaxed) })
            blackHole(echo.render())
            echo.say()
        }
        let instance = try host.makeInstance(of: reference, inputs: inputs)
        let render = Stopwatch.nanosecondsPerOperation(iterations: iterations * 4) { _ in blackHole(try? instance.render()) }
        let echo = SwiftEcho(inputs: ["text": "hello"], emit: { _, _ in })
        let swiftRender = Stopwatch.nanosecondsPerOperation(iterations: iterations * 4) { _ in blackHole(echo.render()) }
        instance.close()
        // The debugger's action log left on: the same emit, recorded and not.
        let logged = try ActionLogBenchmark.run(
            host: host, component: reference, inputs: inputs, interaction: "say", iterations: iterations * 4)

        part.figure("abi_cycle_ns", abi)
        part.figure("swift_cycle_ns", swift)
        part.figure("abi_render_ns", render)
        part.figure("swift_render_ns", swiftRender)
        part.ratio("abi / swift (cycle)", abi / swift)
        part.ratio("abi / swift (render)", render / swiftRender)
        part.figure("emit_ns", logged.withoutNs)
        part.figure("emit_logged_ns", logged.withNs)
        part.ratio("emit with action log / without", logged.ratio, target: "<= 1.2")
        return part
    }
}
