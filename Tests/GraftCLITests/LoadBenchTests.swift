import Foundation
import GraftTestSupport
import Testing

/// `graft bench load` checked for what it does, not for how fast: N distinct
/// plugins into one host per size, both sides timed, totals, per-plugin
/// figures, the growth ratio, and nothing left behind.
@Suite("graft bench load")
struct LoadBenchTests {
    @Test("graft bench load --json reports totals with p99, per-plugin figures and ratios for each size, and cleans up")
    func figures() throws {
        let scratch = try Scratch()
        let part = try benchPart("load", ["--load-sizes", "2,5", "--load-rounds", "2"], scratch: scratch)
        for size in [2, 5] {
            for side in ["host", "floor"] {
                for figure in ["_total_ms", "_total_p99_ms", "_per_plugin_us"] {
                    let key = "n\(size)_\(side)\(figure)"
                    #expect((part[key] as? Double).map { $0 > 0 } == true, "\(key) in \(part)")
                }
            }
        }
        let ratios = try #require(part["ratios"] as? [String: Double])
        for ratio in ["N=2: host / floor", "N=5: host / floor", "host per plugin, N=5 / N=2", "floor per plugin, N=5 / N=2"] {
            #expect(ratios[ratio].map { $0 > 0 } == true, "\(ratio) in \(ratios)")
        }
        let left = try leftBehind(scratch)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")

        let bad = try runCommand(BuildProducts.graft(), ["bench", "load", "--load-sizes", "10,x"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--load-sizes takes positive whole numbers"), "\(bad.stderr)")
    }
}
