import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Calls in parallel: a runner child serves calls about different instances,
/// validators and actions at once (calls about one instance stay in order),
/// and a call that hangs holds only itself. The hostile fixture's `meet` act
/// waits up to 5 s for as many calls as its target says to be inside it at
/// once: served one after the other, each says "alone".
@Suite("Parallel calls", .serialized, .timeLimit(.minutes(10)))
struct ParallelCallsTests {
    static func host(_ folder: URL, isolation: Isolation = .perPlugin, limits: IsolationLimits = IsolationLimits(call: .seconds(20)))
        -> GraftHost
    {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, isolation: isolation, limits: limits),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    /// Runs `bodies` on threads of their own at once; returns their texts in order.
    static func together(strings bodies: [@Sendable () throws -> String]) throws -> [String] { try together(bodies) }

    /// Runs `bodies` on threads of their own at once (Dispatch's pool may run
    /// them one after the other); returns their results in order.
    static func together<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> [T] {
        let results = Locked<[Int: Result<T, any Error>]>([:])
        let ended = DispatchSemaphore(value: 0)
        for (index, body) in bodies.enumerated() {
            Thread.detachNewThread {
                let result = Result { try body() }
                results.withLock { $0[index] = result }
                ended.signal()
            }
        }
        for _ in bodies {
            try #require(ended.wait(timeout: .now() + 60) == .success, "the calls did not all end within 60 s")
        }
        return try results.withLock { results in try (0..<bodies.count).map { try results[$0]!.get() } }
    }

    @Test("two instances of one isolated plugin render at once in its child: each render waits for the other and both finish")
    func instancesOfOnePluginRenderInParallel() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url)
        let first = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "meet", "target": "2"])
        let second = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "meet", "target": "2"])
        let texts = try Self.together(strings: [{ try first.render().text }, { try second.render().text }])
        #expect(texts == ["meet: ok met", "meet: ok met"])
        // One child served both.
        #expect(host.components.first?.runnerProcessID != nil)
    }

    @Test("a validator, an action and a render of one plugin run at once in its child")
    func validatorsActionsAndRendersInParallel() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .seconds(20), validator: .seconds(20)))
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "meet", "target": "3"])
        let outcomes = try Self.together(strings: [
            { try probe.render().text },
            { try host.validate("probe", value: "meet", params: ["3"]).isValid ? "valid" : "invalid" },
            { try host.invokeAction("probe", params: ["act": "meet", "target": "3"]).variables["outcome"]?.stringValue ?? "none" },
        ])
        #expect(outcomes == ["meet: ok met", "valid", "meet: ok met"])
    }

    @Test("the shared child serves two plugins at once")
    func sharedChildServesPluginsInParallel() throws {
        let scratch = try Scratch()
        for index in 0..<2 {
            try Fixtures.build(
                "hostile", into: scratch.url, defines: ["HOSTILE_ID": "\"test.hostile\(index)\"", "HOSTILE_KEY": "\"probe\(index)\""],
                outputName: "libhostile\(index).so")
        }
        let host = Self.host(scratch.url, isolation: .shared)
        try #require(host.components.count == 2, "\(host.failures)")
        let instances = try (0..<2).map { index in
            try host.makeInstance(of: ComponentReference(key: "probe\(index)"), inputs: ["act": "meet", "target": "2"])
        }
        let texts = try Self.together(strings: instances.map { instance in { try instance.render().text } })
        #expect(texts == ["meet: ok met", "meet: ok met"])
        #expect(Set(host.components.compactMap(\.runnerProcessID)).count == 1, "both plugins are in one child")
    }

    @Test("calls about one instance stay in order: two renders of it never overlap")
    func callsAboutOneInstanceStaySerial() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let host = Self.host(scratch.url)
        // Each render waits 1 s for a second call inside the act, which never comes, then says "alone".
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "meet", "target": "2/1000"])
        let texts = try Self.together(strings: [{ try probe.render().text }, { try probe.render().text }])
        #expect(texts == ["meet: ok alone", "meet: ok alone"])
    }

    @Test("a render that hangs past its deadline fails alone: a validator in flight beside it is asked again on a new child and answers")
    func aHangingCallFailsOnlyItself() throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        // Renders get 1 s, validators 10: the validator (1.5 s) is in flight when the render's deadline kills the child.
        let host = Self.host(scratch.url, limits: IsolationLimits(call: .seconds(1), validator: .seconds(10)))
        let hanging = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "sleep", "target": "60000"])
        let outcomes = try Self.together(strings: [
            { () -> String in
                do {
                    _ = try hanging.render()
                    return "answered"
                } catch {
                    return (error as? GraftError)?.code.rawValue ?? "\(error)"
                }
            },
            { try host.validate("probe", value: "sleep", params: ["1500"]).isValid ? "valid" : "invalid" },
        ])
        #expect(outcomes == ["plugin_timeout", "valid"])
        // The instance that hung is created again on the next call.
        try hanging.update(inputs: ["act": "sleep", "target": "0"])
        #expect(try hanging.render().text == "sleep: ok ")
    }
}
