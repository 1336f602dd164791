import Dispatch
import GraftHost
import Synchronization

/// What leaving the action log on costs a component's emit, for
/// `graft bench`: one live host instance is made to emit again and again
/// (an interaction that emits once), first with an `onEvent` that only
/// counts, then with one that also records the event in an `ActionLog`.
/// Rounds of the two alternate, so a noisy neighbour hits both sides alike;
/// the times are medians over rounds and `ratio` is the median of each
/// round's own ratio. The target is `ratio` ≤ 1.2.
///
///     // with the benchmark's echo plugin loaded:
///     let result = try ActionLogBenchmark.run(
///         host: host, component: ComponentReference(key: "echo"), inputs: ["text": "hello"],
///         interaction: "say", iterations: 20_000)
///     print(result.withoutNs, result.withNs, result.ratio)
package enum ActionLogBenchmark {
    package struct Result: Sendable, Hashable {
        /// Nanoseconds per emit with `onEvent` only counting.
        package var withoutNs: Double
        /// Nanoseconds per emit with `onEvent` also recording into the log.
        package var withNs: Double
        /// Records the log received (capacity-bounded records kept aside).
        package var recorded: UInt64
        /// The median over rounds of with / without measured in that round.
        package var ratio: Double
    }

    /// - Parameters:
    ///   - interaction: an interaction after which the component emits exactly once.
    ///   - logCapacity: the log's bound; the default makes the ring wrap, as it does when left on.
    /// - Throws: what `makeInstance` throws, or `invalid_config` when the
    ///   interaction is unknown or does not emit once per call.
    package static func run(
        host: GraftHost, component: ComponentReference, inputs: [String: GraftValue] = [:], interaction: String,
        data: GraftValue? = nil, iterations: Int, rounds: Int = 7, logCapacity: Int = 1_000
    ) throws(GraftError) -> Result {
        let iterations = max(1, iterations)
        let emits = Atomic<Int>(0)
        let log = ActionLog(capacity: logCapacity)
        let plain = try host.makeInstance(
            of: component, id: "bench.plain", inputs: inputs, onEvent: { _ in emits.add(1, ordering: .relaxed) })
        defer { plain.close() }
        let logged = try host.makeInstance(
            of: component, id: "bench.logged", inputs: inputs,
            onEvent: { event in
                emits.add(1, ordering: .relaxed)
                log.record(event)
            })
        defer { logged.close() }

        for instance in [plain, logged] {
            let before = emits.load(ordering: .relaxed)
            guard instance.interact(interaction, data: data), emits.load(ordering: .relaxed) == before + 1 else {
                throw GraftError(
                    .invalidConfig, "interaction '\(interaction)' on \(component) must emit exactly one event per call.",
                    key: component.key)
            }
        }
        // Warm both paths up (caches, lazily built metadata) before timing.
        for _ in 0..<max(1, iterations / 10) {
            plain.interact(interaction, data: data)
            logged.interact(interaction, data: data)
        }
        var without: [Double] = []
        var with: [Double] = []
        for _ in 0..<max(1, rounds) {
            without.append(nanosecondsPerCall(iterations) { plain.interact(interaction, data: data) })
            with.append(nanosecondsPerCall(iterations) { logged.interact(interaction, data: data) })
        }
        return Result(
            withoutNs: median(without), withNs: median(with), recorded: log.lastSequence,
            ratio: median(zip(with, without).map { $0 / $1 }))
    }

    private static func nanosecondsPerCall(_ iterations: Int, _ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
