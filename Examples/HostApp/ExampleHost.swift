import ArgumentParser
import Dispatch
import Foundation
import GraftDebugger
import GraftFlows
import GraftHost
import Logging

/// A long-running host app embedding GraftHost, with its debug endpoint on:
/// it loads the plugins, runs a flow, feeds it events on a timer (or from
/// standard input), keeps an action log and serves `graft debug attach`.
@main
struct ExampleHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft-example-host",
        abstract: "A host app that runs a flow with its debug endpoint open, for `graft debug attach`.",
        discussion: """
            Runs until SIGINT or SIGTERM, then closes the endpoint (removing the socket) and exits 0.
            Events: --events FILE.jsonl (one every --interval ms, restarting the flow when they run out or it
            closes), or --events - to read them from standard input. Without --events, the flow's sibling
            FLOW.events.jsonl is used when it exists, else standard input.
            """)

    @Option(help: ArgumentHelp("Where to open the debug endpoint (a folder you own).", valueName: "path"))
    var debugSocket: String

    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp("A plugin folder or .so file, searched before GRAFT_PLUGIN_PATH and the default folders (repeatable).", valueName: "path"))
    var pluginPaths: [String] = []

    @Flag(help: "Search only --plugin-path.")
    var onlyPluginPath = false

    @Option(help: ArgumentHelp("The flow to run (default: Examples/flows/checkout.json when it exists).", valueName: "flow.json"))
    var flow: String?

    @Option(help: ArgumentHelp("Events to feed, one JSON object per line, or - for standard input.", valueName: "events.jsonl"))
    var events: String?

    @Option(help: "Milliseconds between two events from a file.")
    var interval: Int = 1000

    @Option(help: "Records the action log keeps.")
    var logCapacity: Int = ActionLog.defaultCapacity

    @Flag(help: "Reload plugins when their files change (hot swap); swaps appear in the action log.")
    var watch = false

    @Flag(help: "Do not print the action log on standard output.")
    var quiet = false

    @Flag(help: "Run plugin code in this process instead of a child process per plugin: faster, but a crashing plugin takes the host down.")
    var inProcess = false

    func validate() throws {
        guard interval >= 1 else { throw ValidationError("--interval must be at least 1 ms.") }
    }

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        // Signals first: a client that sees the socket may stop the host at
        // once, and a SIGTERM must not slip in before anyone listens for it.
        let shutdown = ShutdownSignals()
        shutdown.start()
        let host = makeHost()
        let log = ActionLog(capacity: logCapacity)
        log.recordSwaps(of: host)
        log.recordSandboxDenials(of: host)
        let watcher: PluginWatcher?
        do {
            watcher = watch ? try host.watchPluginFolders() : nil
        } catch {
            throw fail("cannot watch the plugin folders: \(error.code.rawValue): \(error.message)")
        }

        // Everything that can fail is read before the socket exists, so a
        // failure never leaves a socket file behind.
        let wiring = try loadFlow()
        let events = wiring == nil ? nil : try eventSource()
        let endpoint: DebugEndpoint
        do {
            endpoint = try host.openDebugEndpoint(socketPath: debugSocket, log: log, flow: wiring)
        } catch {
            throw fail("cannot open the debug endpoint: \(error.code.rawValue): \(error.message)")
        }
        shutdown.closeOnExit(endpoint)
        say("graft-example-host \(GraftHost.version), pid \(ProcessInfo.processInfo.processIdentifier)")
        say("plugins: \(host.plugins.map { "\($0.id) \($0.version)" }.joined(separator: ", "))\(host.failures.isEmpty ? "" : " (\(host.failures.count) failed to load)")")
        say("debug endpoint: \(endpoint.socketPath)")

        let follower = quiet ? nil : log.follow(on: DispatchQueue(label: "graft.example.print")) { records, _ in
            for record in records { say(record.text) }
        }
        var driver: FlowDriver?
        if let wiring, let events {
            let feed = FlowLogFeed(log: log, host: host)
            let running = FlowDriver(host: host, flow: wiring.document, feed: feed)
            driver = running
            switch events {
            case .file(let path, let lines):
                say("flow: \(flow ?? FlowDriver.defaultFlow), events from \(path) every \(interval) ms")
                running.play(lines, every: .milliseconds(interval))
            case .standardInput:
                say("flow: \(flow ?? FlowDriver.defaultFlow), events from standard input")
                running.readStandardInput()
            }
        } else {
            say("no flow: serving the debug endpoint only")
        }
        withExtendedLifetime((host, endpoint, watcher, follower, driver, shutdown)) {
            dispatchMain()
        }
    }

    private func makeHost() -> GraftHost {
        let searchPath =
            onlyPluginPath
            ? SearchPath.standard(explicit: pluginPaths, environment: [:], includeSystemFolders: false)
            : SearchPath.standard(explicit: pluginPaths)
        // One setting isolates every plugin: the rest of the app does not change.
        let configuration = GraftConfiguration(
            searchPath: searchPath, loadsFromCopies: watch, isolation: inProcess ? .inProcess : .perPlugin)
        let host = GraftHost(configuration: configuration, logger: Logger(label: "graft.example"))
        host.loadPlugins()
        return host
    }

    private func loadFlow() throws -> FlowWiring? {
        let path = flow ?? (FileManager.default.fileExists(atPath: FlowDriver.defaultFlow) ? FlowDriver.defaultFlow : nil)
        guard let path else { return nil }
        do {
            return try FlowWiring(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw fail("cannot read the flow: \(error.code.rawValue): \(error.message)")
        }
    }

    private enum EventSource {
        case file(path: String, lines: [String])
        case standardInput
    }

    private func eventSource() throws -> EventSource {
        var path = events
        if path == nil {
            let sibling = ((flow ?? FlowDriver.defaultFlow) as NSString).deletingPathExtension + ".events.jsonl"
            if FileManager.default.fileExists(atPath: sibling) { path = sibling }
        }
        guard let path, path != "-" else { return .standardInput }
        // Line by line, each line and the count bounded: a folder, a device
        // or an endless stream is refused, not read into memory.
        var lines: [String] = []
        do throws(GraftError) {
            let input = try InputLines(path: path)
            while let (number, line) = try input.next() {
                guard number <= Self.maximumEvents else {
                    throw GraftError(
                        .invalidConfig, "\(path) has more than \(Self.maximumEvents) lines; the example host replays at most that many events.",
                        path: path)
                }
                lines.append(line)
            }
        } catch {
            throw fail("cannot read the events: \(error.code.rawValue): \(error.message)")
        }
        return .file(path: path, lines: lines)
    }

    /// Events replayed from a file, at most.
    static let maximumEvents = 100_000

    /// A failure at run time (not a usage error): said on standard error as
    /// `error: CODE: message`, exit status 2, without the usage text.
    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode(2)
    }
}

/// One line on standard output, written at once (also into a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
