import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// The async calls: an isolated call suspends its task without holding one of
/// Swift's cooperative threads, a cancelled task gets `call_cancelled` while
/// the call finishes on its own, and every call kind answers as its
/// synchronous form does.
@Suite("Async calls", .serialized, .timeLimit(.minutes(10)))
struct AsyncCallsTests {
    static func host(_ folder: URL, isolation: Isolation = .perPlugin, limits: IsolationLimits = IsolationLimits()) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, isolation: isolation, limits: limits),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    static func probe(_ host: GraftHost, _ act: String, _ target: String = "") async throws -> ComponentInstance {
        try await host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": .string(act), "target": .string(target)])
    }

    // The synchronous forms, called from a synchronous function (an async
    // context picks the async overloads).
    static func renderNow(_ instance: ComponentInstance) throws -> Rendering { try instance.render() }
    static func interactNow(_ instance: ComponentInstance, _ action: String) -> Bool { instance.interact(action) }
    static func validateNow(_ host: GraftHost, _ name: String, _ value: GraftValue) throws -> ValidationOutcome {
        try host.validate(name, value: value)
    }

    @Test("renders that wait on their children hold no cooperative thread: other tasks run while more of them hang than there are cores")
    func waitingHoldsNoCooperativeThread() async throws {
        let scratch = try Scratch()
        // One plugin per render, each in a child of its own: the renders wait at the same time.
        let waiting = ProcessInfo.processInfo.activeProcessorCount + 2
        for index in 0..<waiting {
            try Fixtures.build(
                "hostile", into: scratch.url, defines: ["HOSTILE_ID": "\"test.hostile\(index)\"", "HOSTILE_KEY": "\"probe\(index)\""],
                outputName: "libhostile\(index).so")
        }
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .seconds(20)))
        try #require(host.components.count == waiting, "\(host.failures)")
        var instances: [ComponentInstance] = []
        for index in 0..<waiting {
            instances.append(try await host.makeInstance(of: ComponentReference(key: "probe\(index)"), inputs: ["act": "sleep", "target": "3000"]))
        }
        let finished = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for instance in instances {
                group.addTask {
                    let rendered = try await instance.render()
                    #expect(rendered.text == "sleep: ok ")
                    finished.withLock { $0 += 1 }
                }
            }
            // Runs on the cooperative pool while every render still waits on its child (3 s each).
            let ranMeanwhile = await Task.detached { finished.withLock { $0 } }.value
            #expect(ranMeanwhile == 0, "a task ran only after \(ranMeanwhile) renders ended")
            try await group.waitForAll()
        }
        #expect(finished.withLock { $0 } == waiting)
    }

    @Test("a cancelled render ends with call_cancelled while it still runs; the instance is usable once the abandoned call ends")
    func cancellationAbandonsTheCall() async throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .seconds(20)))
        let instance = try await Self.probe(host, "sleep", "4000")
        let render = Task { try await instance.render() }
        // Cancelled while the render sleeps in the child (4 s), or before it is sent: either way it is abandoned.
        try await Task.sleep(for: .milliseconds(200))
        render.cancel()
        let outcome = await render.result
        let error = #expect(throws: GraftError.self) { try outcome.get() }
        #expect(error?.code == .callCancelled, "\(String(describing: error))")
        #expect(error?.message.contains("render of instance") == true)
        // The next call waits for the abandoned one, then works.
        try await instance.update(inputs: ["act": "sleep", "target": "0"])
        #expect(try await instance.render().text == "sleep: ok ")
        // A task cancelled before it calls does not call at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await instance.render()
        }
        let earlyError = await #expect(throws: GraftError.self) { try await early.value }
        #expect(earlyError?.code == .callCancelled)
    }

    @Test(
        "every async call answers as its synchronous form: create, render, interact, update, validate, action",
        arguments: [Isolation.perPlugin, .inProcess])
    func sameAnswers(isolation: Isolation) async throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        try Fixtures.build("good_echo", into: scratch.url)
        let host = Self.host(scratch.url, isolation: isolation)
        let echo = try await host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        let synchronous = try Self.renderNow(echo)
        #expect(try await echo.render() == synchronous)
        try await echo.update(inputs: ["text": "there"])
        #expect(try await echo.render().text.contains("there"))
        #expect(await echo.interact("no_such_interaction") == Self.interactNow(echo, "no_such_interaction"))
        let valid = try await host.validate("probe", value: "sleep", params: ["0"])
        #expect(valid.isValid)
        let refused = try await host.validate("probe", value: "no_such_act")
        #expect(refused == (try Self.validateNow(host, "probe", "no_such_act")))
        let acted = try await host.invokeAction("probe", params: ["act": "sleep", "target": "0"])
        #expect(acted.ok)
        #expect(acted.variables["outcome"] == "sleep: ok ")
        let missing = await #expect(throws: GraftError.self) { try await host.makeInstance(of: ComponentReference(key: "nope")) }
        #expect(missing?.code == .customComponentNotFound)
    }
}
