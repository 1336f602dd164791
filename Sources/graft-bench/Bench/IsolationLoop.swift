import ArgumentParser
import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftHost

/// One isolated call in a loop, for profilers and for comparing two builds
/// process against process (`graft-bench isolation-loop render 20000`): the
/// bench's echo plugin in a runner child, host and child pinned to one CPU,
/// the calls timed after 1,000 untimed; prints "NANOSECONDS-PER-CALL". A
/// `cycle` is the isolation part's: create, render, interact, destroy. Not
/// for people: hidden from help.
struct BenchIsolationLoop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isolation-loop", abstract: "One isolated call in a loop, timed.", shouldDisplay: false)

    enum Call: String, ExpressibleByArgument { case render, cycle }

    @Argument var call: Call
    @Argument var count: Int

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graft-bench-loop-\(UUID().uuidString)")
        let plugins = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try BenchPlugin.build(into: plugins, name: "libbench_echo.so", defines: ["BENCH_CRASH"])
        let host = GraftHost(
            configuration: BenchHosts.isolated(folder: plugins.path, cache: folder.appendingPathComponent("cache").path),
            logger: quietLogger)
        host.loadPlugins()
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        _ = try echo.render()
        let child = try IsolationBench.isolatedChildPID(of: echo)
        var saved = graft_cpu_mask_t()
        let cpu = graft_pin_to_current_cpu(&saved)
        if cpu >= 0 { _ = graft_pin_to_cpu(child, cpu) }
        let body: () -> Void
        switch call {
        case .render: body = { _ = try? echo.render() }
        case .cycle:
            body = {
                guard let instance = try? host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"]) else { return }
                _ = try? instance.render()
                instance.interact("say")
                instance.close()
            }
        }
        for _ in 0..<1000 { body() }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { body() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        print(elapsed / UInt64(max(count, 1)))
        withExtendedLifetime(host) {}
    }
}
