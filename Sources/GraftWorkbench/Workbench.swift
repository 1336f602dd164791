import FoundationEssentials

#if !Tools
#error("GraftWorkbench needs Graft's Tools trait: name Graft with its default traits.")
#endif

import GraftDebugger
import GraftFlows
import GraftHost
import Hummingbird
import HummingbirdWebSocket
import Logging

/// Graft Workbench: a local web page where testers and plugin authors see,
/// drive and hot-swap a host's components (`graft workbench`).
///
///     let workbench = try Workbench(host: host, options: WorkbenchOptions(flowPath: "checkout.json"))
///     let address = try await workbench.start()
///     print(workbench.url)                  // http://127.0.0.1:PORT/?token=…
///     …
///     await workbench.stop()
///
/// It puts the debugger's parts in front of a person: the plugin report,
/// component sessions (a live instance from the debugConfig, driven by
/// controls and interactions), the sandbox, validator and action try-outs,
/// the action log (live), a flow run screen by screen, an attached host's
/// endpoint, and hot swap of rebuilt plugins. Safe by default: loopback
/// only, a token on every request, Host and Origin checked, a content
/// security policy, plugin HTML only in a frame with no rights.
public final class Workbench: Sendable {
    public let host: GraftHost
    public let options: WorkbenchOptions
    /// Everything the pages did and saw: events, actions, validations, swaps.
    public let log: ActionLog
    private let parts: WorkbenchParts
    private let server: WorkbenchServer
    private let watcher: PluginWatcher?
    private let running = Locked<Running?>(nil)

    private struct Running: Sendable {
        var address: WorkbenchAddress
        var relay: LogRelay
        var swaps: SwapRelay
    }

    /// Reads the flow (`invalid_flow` naming the file and JSON path) and
    /// starts watching the plugin folders; nothing listens before `start`.
    /// Give a host that `loadsFromCopies` when watching: hot swap rewrites files.
    public init(host: GraftHost, options: WorkbenchOptions = WorkbenchOptions(), logger: Logger? = nil) throws(GraftError) {
        self.host = host
        self.options = options
        let log = ActionLog(capacity: options.logCapacity)
        self.log = log
        let hub = LiveHub()
        let flow = try options.flowPath.map { path throws(GraftError) in
            FlowSession(document: try FlowDocument(contentsOf: URL(fileURLWithPath: path)), path: path, host: host, log: log)
        }
        let watcher = try options.watchesPlugins ? host.watchPluginFolders(debounce: options.debounce) : nil
        self.watcher = watcher
        parts = WorkbenchParts(
            host: host, log: log, hub: hub, sessions: SessionStore(host: host, log: log), flow: flow,
            attached: options.attachSocket.map { AttachedHost(socketPath: $0, hub: hub) }, watching: watcher?.folders ?? [],
            storiesFolder: options.storiesFolder)
        var serverLogger = logger ?? Logger(label: "graft.workbench")
        if logger == nil { serverLogger.logLevel = .error }
        server = WorkbenchServer(parts: parts, token: options.token, logger: serverLogger)
    }

    /// Listens on 127.0.0.1 and returns where. Throws `port_unavailable`
    /// when the port is taken.
    @discardableResult
    public func start() async throws -> WorkbenchAddress {
        log.recordSwaps(of: host)
        log.recordSandboxDenials(of: host)
        let address = try await server.start(port: options.port)
        let relay = LogRelay(log: log, hub: parts.hub)
        let swaps = SwapRelay(host: host, hub: parts.hub, sessions: parts.sessions, flow: parts.flow)
        parts.attached?.start()
        running.withLock { $0 = Running(address: address, relay: relay, swaps: swaps) }
        return address
    }

    /// Its routes, as the server serves them, for tests in memory
    /// (HummingbirdTesting's `.router`): behind the request guard as if
    /// bound to `port`, or, with nil, without it.
    package func router(guardedAsIfOn port: Int?) -> Router<BasicWebSocketRequestContext> {
        let bound = port.map { port in
            let bound = BoundPort()
            bound.set(port)
            return bound
        }
        return WorkbenchServer.router(parts: parts, token: options.token, guardedAt: bound)
    }

    /// The address once started.
    public var address: WorkbenchAddress? { running.withLock { $0?.address } }

    /// The URL to open: the address with the token, as `graft workbench` prints it.
    public var url: String? { address.map { "\($0.base)?token=\(options.token.value)" } }

    /// The folders whose plugin files are hot-swapped.
    public var watchedFolders: [String] { watcher?.folders ?? [] }

    /// Pages connected to the live channel now.
    public var liveConnections: Int { parts.hub.count }

    /// Stops listening, closes the pages' live channels and every component
    /// session, and stops watching.
    public func stop() async {
        let stopped = running.withLock { running in defer { running = nil }; return running }
        stopped?.relay.stop()
        stopped?.swaps.stop()
        parts.attached?.stop()
        parts.hub.closeAll()
        await server.stop()
        parts.sessions.closeAll()
        watcher?.stop()
    }
}
