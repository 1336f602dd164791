import Foundation
import GraftTestSupport
import Testing

/// `graft bench components` checked for what it does, not for how fast: the
/// C plugin through the host, its Swift twin in the same host and the C
/// floor are each timed, with p99, and compared.
@Suite("graft bench components")
struct ComponentBenchTests {
    @Test("graft bench components --json reports the three cycles with p99, the renders, the ratios and the action log's cost")
    func figures() throws {
        let scratch = try Scratch()
        let part = try benchPart("components", ["--iterations", "2000"], scratch: scratch)
        for key in [
            "abi_cycle_ns", "abi_cycle_p99_ns", "swift_in_host_cycle_ns", "swift_in_host_cycle_p99_ns", "floor_cycle_ns",
            "floor_cycle_p99_ns", "abi_render_ns", "swift_in_host_render_ns", "emit_ns", "emit_logged_ns",
        ] {
            #expect((part[key] as? Double).map { $0 > 0 } == true, "\(key) in \(part)")
        }
        let ratios = try #require(part["ratios"] as? [String: Double])
        for ratio in ["abi / floor (cycle)", "abi / swift in host (cycle)", "abi / swift in host (render)", "emit with action log / without"] {
            #expect(ratios[ratio].map { $0 > 0 } == true, "\(ratio) in \(ratios)")
        }
        let left = try leftBehind(scratch)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
    }
}
