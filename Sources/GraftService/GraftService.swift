#if !Service
#error("GraftService needs Graft's Service trait: name Graft with traits: [\"Service\"], or with its default traits.")
#endif

import GraftDebugger
import GraftHost
import GraftSupport
import ServiceLifecycle

/// A Graft host as a long-lived part of a Swift server: a swift-service-lifecycle
/// `Service` that a `ServiceGroup` starts with the app's other services and
/// stops with them (on SIGTERM, say).
///
/// ```swift
/// let host = GraftHost(configuration: GraftConfiguration(searchPath: .standard()))
/// host.loadPlugins()
/// let graft = GraftService(host: host, debugEndpoint: "/run/myapp/graft.sock")
/// let group = ServiceGroup(services: [graft, httpServer], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// While it runs, it watches the plugin folders (when asked) and serves the
/// debug endpoint (when given a socket path). On graceful shutdown it stops
/// both, lets the plugin calls in flight end (for `shutdownGrace` at most),
/// then ends and reaps every child process the host runs plugins in; calls
/// made after that fail with `host_shut_down`. Cancelling its task does the
/// same.
public struct GraftService: Service {
    public let host: GraftHost
    /// Reload plugins as their files change (see `GraftHost.watchPluginFolders`).
    public var watchesPluginFolders: Bool
    /// Where the debug endpoint listens; nil: none.
    public var debugEndpoint: String?
    /// The log of invoked actions the debug endpoint serves.
    public var actionLog: ActionLog
    /// How long plugin calls in flight get to end once shutdown begins.
    public var shutdownGrace: Duration

    public init(
        host: GraftHost, watchingPluginFolders: Bool = false, debugEndpoint: String? = nil, actionLog: ActionLog = ActionLog(),
        shutdownGrace: Duration = .seconds(10)
    ) {
        self.host = host
        self.watchesPluginFolders = watchingPluginFolders
        self.debugEndpoint = debugEndpoint
        self.actionLog = actionLog
        self.shutdownGrace = shutdownGrace
    }

    public func run() async throws {
        let watcher = watchesPluginFolders ? try host.watchPluginFolders() : nil
        let endpoint: DebugEndpoint?
        do {
            endpoint = try debugEndpoint.map { path throws(GraftError) in try host.openDebugEndpoint(socketPath: path, log: actionLog) }
        } catch {
            watcher?.stop()
            throw error
        }
        // Until the group shuts down gracefully, or this task is cancelled: either way, stop.
        try? await gracefulShutdown()
        watcher?.stop()
        endpoint?.close()
        // Ending the children waits on them (up to the grace period): on a thread of its own, not the cooperative pool's.
        let ending = host, grace = shutdownGrace
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            startThread(named: "graft.shutdown") {
                ending.shutDown(grace: grace)
                ended.resume()
            }
        }
    }
}
