/// Every ratio `graft bench` holds to a target, in one table: the one
/// docs/Performance.md shows (`graft bench --targets` prints it; a test holds
/// the page to it). `graft bench --check` compares each ratio a run measured
/// with its row and exits non-zero on a miss, so the run that makes a
/// regression is the one that shows it.
struct BenchTarget: Sendable, Equatable {
    enum Bound: Sendable, Equatable, CustomStringConvertible {
        case atMost(Double)
        case atLeast(Double)

        /// `<= 1.5` or `>= 0.85` (spaces optional).
        init?(parsing text: some StringProtocol) {
            let trimmed = String(text.filter { $0 != " " })
            guard trimmed.count > 2, let value = Double(trimmed.dropFirst(2)), value.isFinite else { return nil }
            switch String(trimmed.prefix(2)) {
            case "<=": self = .atMost(value)
            case ">=": self = .atLeast(value)
            default: return nil
            }
        }

        /// As written: 5, 1.25, 0.2.
        static func format(_ bound: Double) -> String {
            bound == bound.rounded() ? String(Int(bound)) : String(bound)
        }

        func holds(for value: Double) -> Bool {
            guard value.isFinite else { return false }
            switch self {
            case .atMost(let bound): return value <= bound
            case .atLeast(let bound): return value >= bound
            }
        }

        var description: String {
            switch self {
            case .atMost(let bound): "<= \(Self.format(bound))"
            case .atLeast(let bound): ">= \(Self.format(bound))"
            }
        }
    }

    var part: String
    var ratio: String
    var bound: Bound

    static let table: [BenchTarget] = [
        BenchTarget("components", "abi / floor (cycle)", .atMost(5)),
        BenchTarget("components", "abi / swift in host (cycle)", .atMost(1.5)),
        BenchTarget("components", "emit with action log / without", .atMost(1.2)),
        BenchTarget("validators", "fast / direct", .atMost(2)),
        BenchTarget("validators", "ffi / direct", .atMost(3)),
        BenchTarget("validators", "ctypes / ffi", .atLeast(8)),
        BenchTarget("load", "N=200: host / floor", .atMost(1.5)),
        BenchTarget("load", "host per plugin, N=1000 / N=10", .atMost(1.2)),
        BenchTarget("hotswap", "swift growth per swap / (mapped image + 64 KiB)", .atMost(1)),
        BenchTarget("discovery", "warm list / floor", .atMost(0.2)),
        BenchTarget("discovery", "cold scan / floor", .atMost(2)),
        BenchTarget("discovery", "host start / floor", .atMost(0.2)),
        BenchTarget("discovery", "graft list / gst-inspect (process)", .atMost(1)),
        BenchTarget("discovery", "signed graft list / unsigned (process)", .atMost(1.1)),
        BenchTarget("discovery", "cold scan: signed / unsigned", .atMost(1.2)),
        BenchTarget("isolation", "same CPU: render / ping-pong (p50)", .atMost(1)),
        BenchTarget("isolation", "same CPU: cycle / ping-pong (p50)", .atMost(3)),
        BenchTarget("isolation", "same CPU: validator / ping-pong (p50)", .atMost(2)),
        BenchTarget("isolation", "across CPUs: render / ping-pong (p50)", .atMost(0.6)),
        BenchTarget("isolation", "across CPUs: cycle / ping-pong (p50)", .atMost(4)),
        BenchTarget("isolation", "across CPUs: validator / ping-pong (p50)", .atMost(2)),
        BenchTarget("isolation", "crash to next answer (p50) / 50 ms", .atMost(1)),
        BenchTarget("isolation", "host private RSS growth / 64 KiB", .atMost(1)),
        BenchTarget("wasm", "wasm render / isolated (p50)", .atMost(0.2)),
        BenchTarget("wasm", "wasm render / native (p50)", .atMost(30)),
        BenchTarget("wasm", "wasm instantiate (p50) / 1 ms", .atMost(1)),
        BenchTarget("wasm", "wasm swap / isolated (p50)", .atMost(1)),
        BenchTarget("wasm", "wasm swap / native (p50)", .atMost(1)),
        BenchTarget("sandbox", "child start: sandboxed / unsandboxed (p50)", .atMost(1.2)),
        BenchTarget("sandbox", "child start: sandboxed with its namespaces / sandboxed without (p50)", .atMost(1.25)),
        BenchTarget("sandbox", "isolated render: sandboxed / unsandboxed (p50)", .atMost(1.05)),
        BenchTarget(
            "sandbox", "isolated render under another plugin's flood of refused calls / quiet (p99, median of rounds)", .atMost(1.5)),
        BenchTarget("server", "isolated / in process, 8 clients (req/s)", .atLeast(0.85)),
        BenchTarget("server", "isolated, 2 clients / 1 (req/s)", .atLeast(1.6)),
        BenchTarget("server", "isolated, 8 clients, 1 in 100 a hang / none (p99)", .atMost(1.5)),
    ]

    init(_ part: String, _ ratio: String, _ bound: Bound) {
        self.part = part
        self.ratio = ratio
        self.bound = bound
    }

    /// The table as Markdown, as docs/Performance.md shows it.
    static func markdown(_ targets: [BenchTarget]) -> String {
        var lines = ["| part | ratio | target |", "|---|---|---|"]
        for target in targets { lines.append("| \(target.part) | \(target.ratio) | \(target.bound) |") }
        return lines.joined(separator: "\n")
    }

    /// A ratio measured against its target.
    struct Verdict {
        var part: String
        var ratio: String
        var value: Double
        var bound: Bound
        var met: Bool { bound.holds(for: value) }
    }

    /// Every ratio of `parts` that has a target in `targets`.
    static func verdicts(_ parts: [BenchPart], targets: [BenchTarget]) -> [Verdict] {
        parts.flatMap { part in
            part.ratios.compactMap { ratio in
                targets.last { $0.part == part.key && $0.ratio == ratio.key }.map {
                    Verdict(part: part.key, ratio: ratio.key, value: ratio.value, bound: $0.bound)
                }
            }
        }
    }
}
