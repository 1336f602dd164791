import Foundation
import GraftTestSupport
import Testing

/// `graft bench server` checked for what it does, not for how fast: both
/// servers answer every client configuration, the trouble configurations
/// run, and the ratios come out.
@Suite("graft bench server")
struct ServerBenchTests {
    @Test("graft bench server --json reports throughput and latency for every configuration, and the ratios")
    func figures() throws {
        let scratch = try Scratch()
        let part = try benchPart("server", ["--server-rounds", "1", "--server-seconds", "0.3"], scratch: scratch)
        for clients in [1, 2, 4, 8, 32] {
            for mode in ["in_process", "isolated", "isolated_hang", "isolated_crash", "isolated_socket"] {
                let key = "\(mode)_\(clients)_requests_per_s"
                #expect((part[key] as? Double).map { $0 > 0 } == true, "\(key) in \(part)")
            }
        }
        let ratios = try #require(part["ratios"] as? [String: Double])
        #expect(ratios.count == 7, "\(ratios)")
        #expect(ratios.values.allSatisfy { $0 > 0 }, "\(ratios)")
        let notes = (part["notes"] as? [String] ?? []).joined(separator: "\n")
        #expect(!notes.contains("requests failed"), "\(notes)")
        #expect(try leftBehind(scratch).isEmpty)

        let bad = try runCommand(BuildProducts.graft(), ["bench", "server", "--server-rounds", "0"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--server-rounds takes a whole number at least 1"), "\(bad.stderr)")
    }
}
