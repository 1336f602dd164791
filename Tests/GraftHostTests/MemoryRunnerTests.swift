import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// The runner, its supervisor and the child's service over a transport in
/// memory: the plugin (the echo fixture, plain C, so that a ThreadSanitizer
/// build can map it too) runs in this process, behind the same protocol, the
/// same limits and the same recovery as in a runner child, with no child
/// started for it (the scan still runs in its own).
@Suite("The runner over a transport in memory")
struct MemoryRunnerTests {
    /// A host over memory with the echo fixture loaded; `scratch` holds the plugin file.
    /// With `readerThread`, a thread per child reads for the callers (the design measured beside the default).
    static func host(_ scratch: borrowing Scratch, limits: IsolationLimits = IsolationLimits(), readerThread: Bool = false) throws -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), cacheFolder: nil, limits: limits),
            logger: quietLogger, connectRunner: MemoryTransport.connect, readerThread: readerThread)
        try host.load(pluginAt: try Fixtures.build("good_echo", into: scratch.url).path)
        return host
    }

    static func runner(_ host: GraftHost, of name: String) throws -> PluginRunner {
        try #require(try host.resolve(ComponentReference(parsing: name)).plugin.runner)
    }

    static func transport(of runner: PluginRunner) -> MemoryTransport? {
        runner.lock.withLock { runner.supervisor.child as? MemoryTransport }
    }

    @Test("create, render, interact and its event, a validator and an action: answered through memory, no runner process", arguments: [false, true])
    func callsEndToEnd(readerThread: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, readerThread: readerThread)
        let log = EventLog()
        let echo = try host.makeInstance(of: "echo", inputs: ["text": "hello"], onEvent: log.handler)
        #expect(try echo.render().text.hasSuffix("hello"))
        #expect(echo.interact("say"))
        #expect(log.all.map(\.event) == ["said"])
        #expect(log.all.first?.payload == ["text": "hello"])
        #expect(echo.interact("drift"))
        #expect(echo.warnings.map(\.code).contains(.undeclaredEvent))
        #expect(try host.validate("is_even", value: 4).isValid)
        #expect(try !host.validate("is_even", value: 3).isValid)
        #expect(try host.invokeAction("echo_action", params: ["text": "hi"]).variables["echoed"] == "hi")
        let runner = try Self.runner(host, of: "echo")
        #expect(Self.transport(of: runner) != nil)
        #expect(runner.childPID == nil)
    }

    @Test("an instance first rendered makes the next one's create carry its render; the answer is collected, none is left")
    func renderBehindCreate() throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch)
        let runner = try Self.runner(host, of: "echo")
        let first = try host.makeInstance(of: "echo", inputs: ["text": "first"])
        _ = try first.render()
        let second = try host.makeInstance(of: "echo", inputs: ["text": "second"])
        #expect(runner.uncollected == 1)
        #expect(try second.render().text.hasSuffix("second"))
        #expect(runner.uncollected == 0)
        second.close()
        first.close()
    }

    @Test("renders from four threads at once, each answered to its own caller", arguments: [false, true])
    func parallelCalls(readerThread: Bool) async throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, readerThread: readerThread)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    let echo = try host.makeInstance(of: "echo", inputs: ["text": .string("thread \(thread)")])
                    for _ in 0..<25 { #expect(try echo.render().text.hasSuffix("thread \(thread)")) }
                    echo.close()
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a child that dies between calls: the next call re-creates the instance on a new one, with plugin_restarted", arguments: [false, true])
    func deathBetweenCalls(readerThread: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, readerThread: readerThread)
        let echo = try host.makeInstance(of: "echo", inputs: ["text": "again"])
        _ = try echo.render()
        let runner = try Self.runner(host, of: "echo")
        let first = try #require(Self.transport(of: runner))
        first.kill()
        #expect(try echo.render().text.hasSuffix("again"))
        #expect(echo.warnings.map(\.code).contains(.pluginRestarted))
        #expect(Self.transport(of: runner) !== first)
    }

    @Test("a child that stops answering: the call fails with plugin_timeout at its deadline, the next works; three in a minute quarantine the plugin", arguments: [false, true])
    func hangsAndQuarantine(readerThread: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, limits: IsolationLimits(call: .milliseconds(150)), readerThread: readerThread)
        let echo = try host.makeInstance(of: "echo", inputs: ["text": "slow"])
        let runner = try Self.runner(host, of: "echo")
        for round in 1...3 {
            _ = try echo.render()
            try #require(Self.transport(of: runner)).hang()
            let started = ContinuousClock.now
            let error = #expect(throws: GraftError.self) { try echo.render() }
            #expect(error?.code == .pluginTimeout, "round \(round)")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
        let held = #expect(throws: GraftError.self) { try echo.render() }
        #expect(held?.message.contains("quarantined") == true)
    }

    @Test("the host's limits hold for answers from memory: a render over the output limit is refused")
    func outputLimit() throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, limits: IsolationLimits(output: 64))
        let echo = try host.makeInstance(of: "echo", inputs: ["text": .string(String(repeating: "long ", count: 40))])
        let error = #expect(throws: GraftError.self) { try echo.render() }
        #expect(error?.code == .outputTooLarge)
    }

    @Test("a host shut down ends its memory children; calls then fail with host_shut_down", arguments: [false, true])
    func shutDown(readerThread: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.host(scratch, readerThread: readerThread)
        let echo = try host.makeInstance(of: "echo", inputs: ["text": "bye"])
        _ = try echo.render()
        let transport = try #require(Self.transport(of: try Self.runner(host, of: "echo")))
        host.shutDown(grace: .seconds(2))
        #expect(transport.ended() == .exited(0))
        let error = #expect(throws: GraftError.self) { try echo.render() }
        #expect(error?.code == .hostShutDown)
    }
}
