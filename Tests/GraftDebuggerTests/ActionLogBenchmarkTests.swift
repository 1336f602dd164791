import GraftDebugger
import GraftHost
import GraftTestSupport
import Testing

/// What `graft bench` runs, checked for what it does, not for how fast:
/// timed assertions do not belong in unit tests.
@Suite("Action log benchmark")
struct ActionLogBenchmarkTests {
    @Test("times emits with and without the log, and the log really records every logged emit")
    func measures() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
        let result = try ActionLogBenchmark.run(
            host: host, component: ComponentReference(key: "echo"), inputs: ["text": "hi"], interaction: "say",
            iterations: 100, rounds: 3)
        #expect(result.withoutNs > 0 && result.withNs > 0)
        #expect(result.recorded == 1 + 10 + 3 * 100, "the check, the warm-up and three rounds of the logged instance")
        #expect(host.openInstanceCount == 0, "both benchmark instances are closed")
    }

    @Test("an interaction that does not emit once per call is refused")
    func refusesSilentInteraction() throws {
        let scratch = try Scratch()
        let host = emptyHost()
        try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
        do {
            _ = try ActionLogBenchmark.run(host: host, component: ComponentReference(key: "echo"), interaction: "no_such_action", iterations: 10)
            Issue.record("an interaction that emits nothing was timed")
        } catch {
            #expect(error.code == .invalidConfig)
        }
        #expect(host.openInstanceCount == 0)
    }
}
