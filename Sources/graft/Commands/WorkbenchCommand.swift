import ArgumentParser
import Dispatch
import FoundationEssentials
import GraftHost
import GraftWorkbench
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `graft workbench`: the web page over the plugins, the sandbox, the action
/// log, flows, an attached host and hot swap. Named `WorkbenchCommand` so
/// that `Workbench` stays the library's type.
struct WorkbenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workbench",
        abstract: "Start Graft Workbench: a local web page to see, drive and hot-swap components, validators, actions and flows.",
        discussion: """
            Listens on 127.0.0.1 only and prints a URL with a random token; open it in a browser (the token is \
            required, as Jupyter's). Plugin folders are watched: a rebuilt plugin re-renders the open page; a \
            refused build shows as a banner while the old build keeps serving. Plugins run isolated (one child \
            process each) unless --in-process is given, so a crashing component shows an error card. Ctrl-C stops.
            """)

    @Option(help: ArgumentHelp("A flow document to run screen by screen, with its transcript.", valueName: "flow.json"))
    var flow: String?

    @Option(help: ArgumentHelp("A running host's debug socket: show its plugins and its live action log.", valueName: "socket"))
    var attach: String?

    @Option(help: "The loopback port to listen on (0: any free port).")
    var port: Int = 0

    @Option(help: "Milliseconds to wait for more file events before reloading a rebuilt plugin.")
    var debounce: Int = 50

    @Flag(help: "Do not watch the plugin folders for rebuilt files.")
    var noWatch = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 (any free port) to 65535, not \(port).") }
        guard debounce >= 0 else { throw ValidationError("--debounce must be 0 or more milliseconds.") }
    }

    func run() throws {
        if let flow { _ = try FlowLoading.document(at: flow, json: options.json) }
        let host = options.makeHost(loadsFromCopies: true)
        var logger = Logger(label: "graft.workbench")
        logger.logLevel = options.logLevel
        let workbench: Workbench
        do throws(GraftError) {
            workbench = try Workbench(
                host: host,
                options: WorkbenchOptions(
                    port: port, flowPath: flow, attachSocket: attach, watchesPlugins: !noWatch, debounce: .milliseconds(debounce)),
                logger: logger)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        let json = options.json
        Task {
            do {
                let address = try await workbench.start()
                Self.announce(workbench, address: address, json: json)
            } catch {
                let failure = error as? WorkbenchError
                    ?? WorkbenchError("port_unavailable", status: 500, "the workbench could not start: \(error).")
                writeToStandardError("error: \(failure.code): \(failure.message)\n")
                if json { Output.json(failure.json) }
                Glibc.exit(2)
            }
        }
        // Ctrl-C and kill stop the server cleanly: pages closed, sessions and
        // their plugin instances closed, runner children reaped.
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                Task {
                    await workbench.stop()
                    Glibc.exit(0)
                }
            }
            source.resume()
            sources.append(source)
        }
        withExtendedLifetime(sources) { dispatchMain() }
    }

    private static func announce(_ workbench: Workbench, address: WorkbenchAddress, json: Bool) {
        let url = workbench.url ?? address.base
        if json {
            Output.json(.object([
                "url": .string(url), "port": .number(Double(address.port)),
                "watching": .list(workbench.watchedFolders.map(GraftValue.string)),
            ]))
        } else {
            Output.line("Graft Workbench is running. Open it in a browser:")
            Output.line("    \(url)")
            let folders = workbench.watchedFolders
            Output.line(folders.isEmpty ? "Not watching any plugin folder." : "Hot swap: watching \(folders.joined(separator: ", ")).")
            Output.line("Only this machine can reach it (127.0.0.1), and only with the token. Ctrl-C to stop.")
        }
        fflush(nil)  // every output stream; stdout itself is not concurrency-safe to name
    }
}
