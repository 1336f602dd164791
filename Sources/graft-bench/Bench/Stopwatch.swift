import Dispatch
import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Times a body in rounds and reports the median nanoseconds per operation:
/// the median of several rounds shrugs off a noisy neighbour on a shared
/// machine better than one long run does.
enum Stopwatch {
    static func nanosecondsPerOperation(
        iterations: Int, rounds: Int = 7, warmup: Bool = true, _ body: (Int) -> Void
    ) -> Double {
        if warmup { for index in 0..<max(iterations / 10, 1) { body(index) } }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<iterations { body(index) }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            samples.append(Double(elapsed) / Double(iterations))
        }
        return median(samples)
    }

    /// Times several bodies in interleaved rounds, so that a noisy neighbour
    /// slows them alike, and returns each body's median ns per operation and
    /// its ratio to the first body (the baseline): the median over rounds of
    /// the two measured in the same round.
    static func compare(
        iterations: Int, rounds: Int = 9, _ bodies: [(Int) -> Void]
    ) -> (nanoseconds: [Double], ratios: [Double]) {
        for body in bodies { for index in 0..<max(iterations / 10, 1) { body(index) } }
        var samples = [[Double]](repeating: [], count: bodies.count)
        for _ in 0..<rounds {
            for (which, body) in bodies.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                for index in 0..<iterations { body(index) }
                let elapsed = DispatchTime.now().uptimeNanoseconds - start
                samples[which].append(Double(elapsed) / Double(iterations))
            }
        }
        let ratios = samples.map { sample in median(zip(sample, samples[0]).map { $0 / $1 }) }
        return (samples.map(median), ratios)
    }

    /// Times each call separately, for latencies whose spread matters.
    static func samples(count: Int, _ body: (Int) -> Void) -> [Double] {
        (0..<count).map { index in
            let start = DispatchTime.now().uptimeNanoseconds
            body(index)
            return Double(DispatchTime.now().uptimeNanoseconds - start)
        }
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 50) }

    /// The 99th percentile (nearest rank): of 50 samples or fewer, the largest.
    static func p99(_ values: [Double]) -> Double { percentile(values, 99) }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// Keeps a result alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Benchmarks measure the work, not the log.
let quietLogger = Logger(label: "graft.bench", factory: { _ in SwiftLogNoOpLogHandler() })
