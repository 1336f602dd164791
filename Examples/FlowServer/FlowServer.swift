import ArgumentParser
import Foundation
import GraftDebugger
import GraftFlows
import GraftHost
import GraftService
import Hummingbird
import Logging
import NIOPosix
import ServiceLifecycle

/// A Swift server that renders a flow's screens with plugin components, to
/// HTML, per request: Hummingbird in front, a Graft host behind it (plugins
/// isolated, one sandboxed child each), the debug endpoint open, and both
/// run as services of one `ServiceGroup`, so that SIGTERM drains requests and
/// plugin calls and reaps every child.
@main
struct FlowServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft-example-server",
        abstract: "A Hummingbird server that renders a flow's screens with plugin components to HTML, per request.",
        discussion: """
            Routes: GET / (the flow's first screen), POST /flow (events, one JSON object per line, then the screen \
            they lead to), GET /components/KEY[@VERSION]?INPUT=VALUE… (one component), GET \
            /validate/NAME?value=V&param=P… (a validator, as JSON), GET /healthz. Stops on SIGINT or SIGTERM.
            """)

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp("A plugin folder or .so file, searched before GRAFT_PLUGIN_PATH and the default folders (repeatable).", valueName: "path"))
    var pluginPaths: [String] = []

    @Flag(help: "Search only --plugin-path.")
    var onlyPluginPath = false

    @Option(help: ArgumentHelp("The flow whose screens it serves (default: Examples/flows/checkout.json).", valueName: "flow.json"))
    var flow = "Examples/flows/checkout.json"

    @Option(help: ArgumentHelp("Where to open the debug endpoint, for `graft debug attach` (default: a socket in the temporary folder).", valueName: "path"))
    var debugSocket: String?

    @Flag(help: "Run plugin code in this process instead of a sandboxed child per plugin: faster, but a crashing plugin takes the server down.")
    var inProcess = false

    @Option(help: "Seconds a plugin call may take before its child is killed.")
    var callTimeout: Double = 2

    @Option(help: "Threads that run flows (a flow's calls wait for their plugins: off Swift's cooperative pool).")
    var flowThreads = 32

    func run() async throws {
        var logger = Logger(label: "graft.example-server")
        logger.logLevel = .notice
        let flowDocument = try FlowDocument(contentsOf: URL(fileURLWithPath: flow))
        var configuration = GraftConfiguration(
            searchPath: onlyPluginPath
                ? SearchPath.standard(explicit: pluginPaths, environment: [:], includeSystemFolders: false, executableFolder: nil)
                : SearchPath.standard(explicit: pluginPaths),
            isolation: inProcess ? .inProcess : .perPlugin,
            limits: IsolationLimits(call: .milliseconds(Int(callTimeout * 1000))))
        configuration.loadsFromCopies = false
        let host = GraftHost(configuration: configuration, logger: logger)
        host.loadPlugins()
        for failure in host.failures { logger.warning("\(failure.error)") }

        // The debug endpoint needs a folder only this user can write to: by default, a new one in the temporary folder.
        var ownFolder: String?
        if debugSocket == nil {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graft-example-server-\(getpid())").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            ownFolder = folder
        }
        defer { if let ownFolder { try? FileManager.default.removeItem(atPath: ownFolder) } }
        let socket = debugSocket ?? ownFolder! + "/debug.sock"
        let flows = NIOThreadPool(numberOfThreads: flowThreads)
        flows.start()
        let routes = FlowRoutes(host: host, flow: flowDocument, flows: flows)
        let router = Router()
        routes.add(to: router)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(hostname, port: port), serverName: nil),
            services: [GraftService(host: host, debugEndpoint: socket, shutdownGrace: .seconds(5))],
            onServerRunning: { channel in
                // One line a script can wait for: where it listens and where its debug endpoint is.
                let line = "listening on http://\(hostname):\(channel.localAddress?.port ?? port) debug \(socket)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger)
        try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        try await flows.shutdownGracefully()
    }
}
