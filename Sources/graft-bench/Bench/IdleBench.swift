import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench idle`: what a host with ten idle runner children costs: the
/// CPU time of this whole process (its threads that watch the children
/// included: the sandbox's monitor, the CPU watch) and of the children, over
/// two seconds after each rendered once and settled. Both should be nothing
/// measurable.
enum IdleBench {
    static func run(folder: URL, children: Int = 10, seconds: Double = 2) throws -> BenchPart {
        var part = BenchPart(name: "idle")
        let plugins = folder.appendingPathComponent("idle")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        for index in 0..<children {
            _ = try BenchPlugin.build(
                into: plugins, name: "libbench_idle\(index).so", defines: ["BENCH_ID=\"bench.idle\(index)\"", "BENCH_KEY=\"idle\(index)\""])
        }
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [plugins.path]), cacheFolder: nil, isolation: .perPlugin),
            logger: quietLogger)
        host.loadPlugins()
        var pids: [Int32] = []
        var instances: [ComponentInstance] = []
        for index in 0..<children {
            let instance = try host.makeInstance(of: ComponentReference(key: "idle\(index)"), inputs: ["text": "idle"])
            _ = try instance.render()
            instances.append(instance)
            if let pid = instance.component.runnerProcessID { pids.append(pid) }
        }
        // A runner's stand-by thread looks for a second after its last call: past that, nothing should run.
        usleep(1_500_000)
        func processCPU() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
        }
        func childrenCPU() -> Double { pids.reduce(0) { $0 + IdleCPUWatch.cpuTime(ofTree: $1) / .milliseconds(1) } }
        let before = (processCPU(), childrenCPU())
        usleep(UInt32(seconds * 1_000_000))
        let after = (processCPU(), childrenCPU())
        part.figure("host_cpu_ms", after.0 - before.0, "ms of CPU in \(BenchPart.format(seconds)) s: this process, \(pids.count) idle children watched")
        part.figure("children_cpu_ms", after.1 - before.1, "ms of CPU in \(BenchPart.format(seconds)) s: the \(pids.count) idle children together")
        withExtendedLifetime((host, instances)) {}
        return part
    }
}
