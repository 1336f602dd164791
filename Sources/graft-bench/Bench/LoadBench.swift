import Dispatch
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench load`: N distinct plugin files loaded into one host with
/// `host.load(pluginAt:)` (open, trust, ELF checks, dlopen, entry, ABI, init,
/// descriptors, registration), against the floor: the C program of
/// `DiscoveryFloor`, which does what any host must (dlopen, entry, ABI check,
/// init, every descriptor) and nothing else. For each N, every round copies
/// the files afresh (new inodes, never loaded) and runs both sides, each in a
/// new process that times its own loop (`graft-bench load-child` for the
/// host), in alternating order. Totals and per-plugin figures are medians
/// over rounds, with p99; the ratio is the median of each round's own ratio.
/// Growth: the per-plugin cost at the largest N over that at the smallest,
/// for the host and for the floor (whose own growth is glibc's dlopen).
enum LoadBench {
    static func run(folder: URL, sizes: [Int], rounds: Int) throws -> BenchPart {
        var part = BenchPart(name: "load N plugins into one host (N = \(sizes.map(String.init).joined(separator: ", ")))")
        guard let largest = sizes.max(), sizes.allSatisfy({ $0 > 0 }), rounds > 0 else {
            throw DiscoveryBench.Failure(description: "--load-sizes must be positive and --load-rounds at least 1")
        }
        // This executable, for the host side's own process.
        guard let graft = SearchPath.executableFolder.map({ $0 + "/graft-bench" }), FileManager.default.isExecutableFile(atPath: graft) else {
            throw DiscoveryBench.Failure(description: "no graft-bench executable found to time the host side in")
        }
        let root = folder.appendingPathComponent("load")
        try DiscoveryBench.makeFolder(root)
        defer { try? FileManager.default.removeItem(at: root) }
        // One set of distinct builds; each N takes the first N, and the last
        // one warms each process up, untimed.
        let builds = try DiscoveryBench.buildPlugins(largest + 1, into: root.appendingPathComponent("builds"))
        let warmUpBuild = builds[largest]
        let floorProgram = try DiscoveryFloor.build(into: root)
        var perPlugin: [Int: (host: Double, floor: Double)] = [:]
        for size in sizes.sorted() {
            var host: [Double] = [], floor: [Double] = [], ratios: [Double] = []
            for round in 0..<rounds {
                let hostFiles = try DiscoveryBench.copies(
                    of: Array(builds.prefix(size)) + [warmUpBuild], into: root.appendingPathComponent("host-\(size)-\(round)"))
                let floorFiles = try DiscoveryBench.copies(
                    of: Array(builds.prefix(size)) + [warmUpBuild], into: root.appendingPathComponent("floor-\(size)-\(round)"))
                var hostTime = 0.0, floorTime = 0.0
                // Alternate which side goes first: the page cache and the CPU's state favour neither.
                for side in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                    if side == 0 {
                        hostTime = try timeHost(graft, files: Array(hostFiles.dropLast()), warmUp: hostFiles.last!)
                    } else {
                        floorTime = try DiscoveryFloor.run(floorProgram, files: Array(floorFiles.dropLast()), warmUp: floorFiles.last!)
                    }
                }
                host.append(hostTime)
                floor.append(floorTime)
                ratios.append(hostTime / floorTime)
                try? FileManager.default.removeItem(at: root.appendingPathComponent("host-\(size)-\(round)"))
                try? FileManager.default.removeItem(at: root.appendingPathComponent("floor-\(size)-\(round)"))
            }
            let hostMedian = Stopwatch.median(host), floorMedian = Stopwatch.median(floor)
            part.figure("n\(size)_host_total_ms", hostMedian / 1e6, "ms")
            part.figure("n\(size)_host_total_p99_ms", Stopwatch.p99(host) / 1e6, "ms")
            part.figure("n\(size)_floor_total_ms", floorMedian / 1e6, "ms")
            part.figure("n\(size)_floor_total_p99_ms", Stopwatch.p99(floor) / 1e6, "ms")
            part.figure("n\(size)_host_per_plugin_us", hostMedian / Double(size) / 1e3, "µs")
            part.figure("n\(size)_floor_per_plugin_us", floorMedian / Double(size) / 1e3, "µs")
            part.ratio("N=\(size): host / floor", Stopwatch.median(ratios))
            perPlugin[size] = (hostMedian / Double(size), floorMedian / Double(size))
        }
        if let smallest = sizes.min(), smallest != largest, let low = perPlugin[smallest], let high = perPlugin[largest] {
            part.ratio("host per plugin, N=\(largest) / N=\(smallest)", high.host / low.host)
            part.ratio("floor per plugin, N=\(largest) / N=\(smallest)", high.floor / low.floor)
            part.notes.append("target: the host's per-plugin cost at N=\(largest) within 1.2× of that at N=\(smallest)")
        }
        part.notes.append(
            "\(rounds) rounds per N; each side in a new process that times its own loop, after loading one other plugin untimed (start-up and one-time costs are not counted)")
        return part
    }

    /// Runs `graft-bench load-child` on `files`; the nanoseconds its loop took.
    static func timeHost(_ graft: String, files: [String], warmUp: String) throws -> Double {
        let run = try DiscoveryBench.spawn(graft, ["load-child", "--warm-up", warmUp] + files, capturingOutput: true)
        let text = String(decoding: run.output, as: UTF8.self)
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard run.status == 0, fields.count == 2, let nanoseconds = Double(fields[0]), Int(fields[1]) == files.count else {
            throw DiscoveryBench.Failure(description: "graft-bench load-child failed (status \(run.status)): \(text.prefix(2000))")
        }
        return nanoseconds
    }

}
