import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench load`: loading N plugins through the host (ELF checks,
/// dlopen, entry, ABI, init, descriptors, registration) against a bare
/// `dlopen` + `dlsym` of N other copies of the same file.
enum LoadBench {
    static func run(folder: URL, count: Int) throws -> BenchPart {
        var part = BenchPart(name: "load \(count) plugins")
        let library = try BenchPlugin.build(into: folder)
        var hostCopies: [String] = []
        var bareCopies: [String] = []
        for index in 0..<count {
            // Distinct paths: the dynamic loader caches by path.
            let host = folder.appendingPathComponent("host\(index).so").path
            let bare = folder.appendingPathComponent("bare\(index).so").path
            try FileManager.default.copyItem(atPath: library.path, toPath: host)
            try FileManager.default.copyItem(atPath: library.path, toPath: bare)
            hostCopies.append(host)
            bareCopies.append(bare)
        }
        var handles: [UnsafeMutableRawPointer] = []
        let bare = Stopwatch.samples(count: count) { index in
            if let handle = dlopen(bareCopies[index], RTLD_NOW | RTLD_LOCAL) {
                blackHole(dlsym(handle, "graft_entry"))
                handles.append(handle)
            }
        }
        var hosts: [GraftHost] = []
        let loaded = Stopwatch.samples(count: count) { index in
            // One host per copy: the copies share a plugin id.
            let host = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
            _ = try? host.load(pluginAt: hostCopies[index])
            hosts.append(host)
        }
        for handle in handles { dlclose(handle) }
        let bareMedian = Stopwatch.median(bare)
        let loadMedian = Stopwatch.median(loaded)
        part.figure("dlopen_us", bareMedian / 1000, "µs")
        part.figure("host_load_us", loadMedian / 1000, "µs")
        part.ratio("host load / dlopen", loadMedian / bareMedian)
        return part
    }
}
