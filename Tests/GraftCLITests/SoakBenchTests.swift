import Foundation
import GraftTestSupport
import Testing

/// A one-minute `graft bench soak`: a host under the mixed load (instances,
/// validators, actions, hot swaps, crashes, debugger clients, abusive
/// clients) must not grow. The bounds, after the first fifth (warm-up):
/// resident memory +24 MB at most (a leak of one instance per cycle, of which
/// there are thousands, is far more), descriptors +8, threads +4 and children
/// +3 at most (clients and children come and go around a sample), and never a
/// zombie. Hours-long slopes are the release bench's job (docs/Performance.md).
@Suite("graft bench soak")
struct SoakBenchTests {
    @Test("a one-minute soak: memory, descriptors, threads and children stay within their bounds, and no zombie is left")
    func oneMinuteSoak() throws {
        let scratch = try Scratch()
        let part = try benchPart("soak", ["--minutes", "1"], scratch: scratch)
        func figure(_ key: String) throws -> Double { try #require(part[key] as? Double, "\(key) in \(part)") }
        let notes = (part["notes"] as? [String] ?? []).joined(separator: "\n")
        #expect(try figure("rss_after_warm_up_growth") <= 24, "\(notes)")
        #expect(try figure("descriptors_growth") <= 8, "\(notes)")
        #expect(try figure("threads_growth") <= 4, "\(notes)")
        #expect(try figure("children_growth") <= 3, "\(notes)")
        #expect(try figure("zombies_max") == 0, "\(notes)")
        // The load ran: instance cycles, swaps and crashes happened.
        #expect(notes.contains("instance cycles"), "\(notes)")
        #expect(!notes.contains(" 0 swaps"), "\(notes)")
        #expect(!notes.contains(" 0 crashes"), "\(notes)")
        #expect(try leftBehind(scratch).isEmpty)

        let bad = try runCommand(BuildProducts.graft(), ["bench", "soak", "--minutes", "0"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--minutes takes a positive number of minutes"), "\(bad.stderr)")
    }
}
