import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// The runner, its supervisor and the child's service over a transport in
/// memory: the plugins run in this process, behind the same protocol, the
/// same limits and the same recovery as in a runner child, with no child
/// started for them (the scan still runs in its own).
@Suite("The runner over a transport in memory")
struct MemoryRunnerTests {
    static func host(limits: IsolationLimits = IsolationLimits()) throws -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), cacheFolder: nil, limits: limits),
            logger: quietLogger, connectRunner: MemoryTransport.connect)
        try host.load(pluginAt: BuildProducts.plugin("DatePicker").path)
        try host.load(pluginAt: BuildProducts.plugin("Checkout").path)
        return host
    }

    static func runner(_ host: GraftHost, of name: String) throws -> PluginRunner {
        try #require(try host.resolve(ComponentReference(parsing: name)).plugin.runner)
    }

    static func transport(of runner: PluginRunner) -> MemoryTransport? {
        runner.lock.withLock { runner.supervisor.child as? MemoryTransport }
    }

    @Test("create, render, interact and its event, a validator and an action: answered through memory, no runner process")
    func callsEndToEnd() throws {
        let host = try Self.host()
        let log = EventLog()
        let picker = try host.makeInstance(
            of: "date_picker@2", inputs: ["label": "Pick a date", "min_date": "2026-01-01"], onEvent: log.handler)
        #expect(try picker.render().text.contains("Pick a date"))
        #expect(picker.interact("select", data: ["date": "2026-12-24"]))
        #expect(log.all.map(\.event) == ["date_selected"])
        #expect(log.all.first?.payload == ["date": "2026-12-24", "timestamp": 1_798_070_400])
        #expect(try picker.render().text.contains("2026-12-24"))
        #expect(try host.validate("iso_date", value: "2026-12-24").isValid)
        #expect(try !host.validate("iso_date", value: "24/12/2026").isValid)
        let runner = try Self.runner(host, of: "date_picker@2")
        #expect(Self.transport(of: runner) != nil)
        #expect(runner.childPID == nil)
    }

    @Test("an instance first rendered makes the next one's create carry its render; the answer is collected, none is left")
    func renderBehindCreate() throws {
        let host = try Self.host()
        let runner = try Self.runner(host, of: "date_picker")
        let first = try host.makeInstance(of: "date_picker", inputs: ["label": "First"])
        _ = try first.render()
        let second = try host.makeInstance(of: "date_picker", inputs: ["label": "Second"])
        #expect(runner.uncollected == 1)
        #expect(try second.render().text.contains("Second"))
        #expect(runner.uncollected == 0)
        second.close()
        first.close()
    }

    @Test("renders from four threads at once, each answered to its own caller")
    func parallelCalls() async throws {
        let host = try Self.host()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    let picker = try host.makeInstance(of: "date_picker", inputs: ["label": .string("thread \(thread)")])
                    for _ in 0..<25 { #expect(try picker.render().text.contains("thread \(thread)")) }
                    picker.close()
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a child that dies between calls: the next call re-creates the instance on a new one, with plugin_restarted")
    func deathBetweenCalls() throws {
        let host = try Self.host()
        let picker = try host.makeInstance(of: "date_picker", inputs: ["label": "Again"])
        _ = try picker.render()
        let runner = try Self.runner(host, of: "date_picker")
        let first = try #require(Self.transport(of: runner))
        first.kill()
        #expect(try picker.render().text.contains("Again"))
        #expect(picker.warnings.map(\.code).contains(.pluginRestarted))
        #expect(Self.transport(of: runner) !== first)
    }

    @Test("a child that stops answering: the call fails with plugin_timeout at its deadline, the next works; three in a minute quarantine the plugin")
    func hangsAndQuarantine() throws {
        let host = try Self.host(limits: IsolationLimits(call: .milliseconds(150)))
        let picker = try host.makeInstance(of: "date_picker", inputs: ["label": "Slow"])
        let runner = try Self.runner(host, of: "date_picker")
        for round in 1...3 {
            _ = try picker.render()
            try #require(Self.transport(of: runner)).hang()
            let started = ContinuousClock.now
            let error = #expect(throws: GraftError.self) { try picker.render() }
            #expect(error?.code == .pluginTimeout, "round \(round)")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
        let held = #expect(throws: GraftError.self) { try picker.render() }
        #expect(held?.message.contains("quarantined") == true)
    }

    @Test("the host's limits hold for answers from memory: a render over the output limit is refused")
    func outputLimit() throws {
        let host = try Self.host(limits: IsolationLimits(output: 64))
        let paywall = try host.makeInstance(
            of: "paywall", inputs: ["title": .string(String(repeating: "Pro ", count: 40)), "price": 4.5, "features": ["A"]])
        let error = #expect(throws: GraftError.self) { try paywall.render() }
        #expect(error?.code == .outputTooLarge)
    }

    @Test("a host shut down ends its memory children; calls then fail with host_shut_down")
    func shutDown() throws {
        let host = try Self.host()
        let picker = try host.makeInstance(of: "date_picker", inputs: ["label": "Bye"])
        _ = try picker.render()
        let transport = try #require(Self.transport(of: try Self.runner(host, of: "date_picker")))
        host.shutDown(grace: .seconds(2))
        #expect(transport.ended() == .exited(0))
        let error = #expect(throws: GraftError.self) { try picker.render() }
        #expect(error?.code == .hostShutDown)
    }
}
