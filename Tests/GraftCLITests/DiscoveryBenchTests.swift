import Foundation
import GraftTestSupport
import Testing

/// `graft bench discovery` checked for what it does, not for how fast: it
/// runs, reports every figure and ratio, and leaves nothing behind.
@Suite("graft bench discovery")
struct DiscoveryBenchTests {
    static let timed = ["floor", "cold_scan", "cold_scan_signed", "warm_list", "host_start"]

    @Test("graft bench discovery --json reports the floor, cold scan, warm list, host start, process and signed figures, and cleans up")
    func figures() throws {
        let scratch = try Scratch()
        let part = try benchPart("discovery", ["--discovery-plugins", "5"], scratch: scratch)

        for name in Self.timed {
            for figure in ["_p50_ms", "_p99_ms", "_per_plugin_p50_us", "_per_plugin_p99_us"] {
                let value = part[name + figure] as? Double
                #expect(value.map { $0 > 0 } == true, "\(name + figure) in \(part)")
            }
        }
        let ratios = try #require(part["ratios"] as? [String: Double])
        for ratio in ["warm list / floor", "cold scan / floor", "host start / floor", "cold scan: signed / unsigned", "signed graft list / unsigned (process)"] {
            #expect(ratios[ratio].map { $0 > 0 } == true, "\(ratio) in \(ratios)")
        }
        #expect(part["graft_list_plugins"] as? Int == 5)
        #expect((part["graft_list_process_p50_ms"] as? Double).map { $0 > 0 } == true)
        let notes = part["notes"] as? [String] ?? []
        if part["gst_inspect_plugins"] != nil {
            #expect((part["gst_inspect_plugins"] as? Int).map { $0 > 0 } == true)
            #expect(ratios["graft list / gst-inspect (process)"].map { $0 > 0 } == true)
        } else {
            #expect(notes.contains { $0.contains("apt-get install -y gstreamer1.0-tools") }, "\(notes)")
        }

        let left = try leftBehind(scratch)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
    }
}
