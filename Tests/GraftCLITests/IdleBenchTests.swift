import Foundation
import GraftTestSupport
import Testing

/// `graft bench idle` in a process of its own: a host with ten idle runner
/// children, its threads that watch them (the sandbox's monitor, the CPU
/// watch) included, uses no measurable CPU, and neither do the children.
@Suite("graft bench idle")
struct IdleBenchTests {
    @Test("an idle host with ten idle children uses no measurable CPU: under 1% of a CPU for the host, 0.1% for the children")
    func idleHost() throws {
        let scratch = try Scratch()
        let part = try benchPart("idle", [], scratch: scratch)
        func figure(_ key: String) throws -> Double { try #require(part[key] as? Double, "\(key) in \(part)") }
        #expect(try figure("host_cpu_ms") < 20, "\(part)")
        #expect(try figure("children_cpu_ms") < 4, "\(part)")
        #expect(try leftBehind(scratch).isEmpty)
    }
}
