import Foundation
import GraftHost
import GraftService
import GraftTestSupport
import Logging
import ServiceLifecycle
import Testing

/// A Graft host in a `ServiceGroup`, as a Swift server runs it: graceful
/// shutdown lets the calls in flight end, stops the debug endpoint, and
/// leaves no child process behind; a call that outlives the grace period
/// fails with `host_shut_down`, and so does every call after.
@Suite("Graft as a service", .serialized, .timeLimit(.minutes(10)))
struct GraftServiceTests {
    static let logger = Logger(label: "graft.test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Keeps every message logged through it.
    struct Recorder: LogHandler {
        let messages: Locked<[String]>
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { messages.withLock { $0.append("\(event.message)") } }
    }

    /// A host of the plugins in `folder`, isolated; what it logs goes to `messages`.
    static func host(_ folder: URL, logging messages: Locked<[String]> = Locked([])) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, isolation: .perPlugin,
                limits: IsolationLimits(call: .seconds(20))),
            logger: Logger(label: "graft.test", factory: { _ in Recorder(messages: messages) }))
        host.loadPlugins()
        return host
    }

    /// Starts `render` on a thread of its own and waits until its child says it sleeps (the call is in flight).
    static func renderInFlight(_ probe: ComponentInstance, _ messages: Locked<[String]>) async throws -> Task<String, any Error> {
        let task = Task.detached { try probe.render().text }
        let sleeping = await eventually(within: .seconds(10)) { messages.withLock { $0.contains { $0.contains("sleeping") } } }
        try #require(sleeping, "the render never reached its child: \(messages.withLock { $0 })")
        return task
    }

    /// Whether process `pid` is gone: ended and reaped (no zombie left).
    static func isGone(_ pid: Int32) -> Bool {
        !FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }

    /// Runs `service` in a group until `body` returns, then shuts the group down gracefully and waits for it.
    static func running(_ service: GraftService, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("graceful shutdown lets a call in flight end, closes the debug endpoint, and leaves no child; later calls fail with host_shut_down")
    func gracefulShutdownDrainsAndReaps() async throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let messages = Locked<[String]>([])
        let host = Self.host(scratch.url, logging: messages)
        let socket = scratch.url.appendingPathComponent("debug.sock").path
        let probe = try await host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "sleep", "target": "1500"])
        let service = GraftService(host: host, debugEndpoint: socket, shutdownGrace: .seconds(10))
        // Read before the render: an instance's calls (and its component, which a swap may change) wait for the one in flight.
        let child = try #require(probe.component.runnerProcessID)
        var inFlight: Task<String, any Error>?
        try await Self.running(service) {
            #expect(await eventually(within: .seconds(10)) { FileManager.default.fileExists(atPath: socket) })
            // A render that sleeps 1.5 s in the child: in flight when shutdown begins.
            inFlight = try await Self.renderInFlight(probe, messages)
        }
        // The group has returned: the render in flight ended well, within the grace period.
        #expect(try await inFlight?.value == "sleep: ok ")
        #expect(!FileManager.default.fileExists(atPath: socket), "the debug endpoint's socket is removed")
        #expect(Self.isGone(child), "child \(child) is still there")
        let after = #expect(throws: GraftError.self) { try probe.render() }
        #expect(after?.code == .hostShutDown)
        let validation = #expect(throws: GraftError.self) { try host.validate("probe", value: "sleep", params: ["0"]) }
        #expect(validation?.code == .hostShutDown)
    }

    @Test("a call still in flight when the grace period ends fails with host_shut_down, and its child is reaped")
    func graceEndsLongCalls() async throws {
        let scratch = try Scratch()
        try Fixtures.build("hostile", into: scratch.url)
        let messages = Locked<[String]>([])
        let host = Self.host(scratch.url, logging: messages)
        let probe = try await host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "sleep", "target": "15000"])
        let service = GraftService(host: host, shutdownGrace: .milliseconds(300))
        let child = try #require(probe.component.runnerProcessID)
        var inFlight: Task<String, any Error>?
        let start = ContinuousClock.now
        try await Self.running(service) {
            inFlight = try await Self.renderInFlight(probe, messages)
        }
        let outcome = await inFlight?.result
        let error = #expect(throws: GraftError.self) { try outcome?.get() }
        #expect(error?.code == .hostShutDown, "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(10), "the 15 s render was not waited for")
        #expect(Self.isGone(child), "child \(child) is still there")
    }
}
