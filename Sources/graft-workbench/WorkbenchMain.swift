import ArgumentParser
import Dispatch
import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftSupport
import GraftWorkbench
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `graft-workbench`, which `graft workbench` runs: the web page over the
/// plugins, the sandbox, the action log, flows, an attached host and hot
/// swap. A separate executable so that every other `graft` command starts
/// without the web server's code (Hummingbird and NIO add about a third to
/// `graft`'s relocations, paid at every start).
@main
struct WorkbenchMain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft workbench", abstract: WorkbenchArguments.abstract, discussion: WorkbenchArguments.discussion,
        version: GraftHost.version)

    @OptionGroup var workbench: WorkbenchArguments

    @OptionGroup var options: GlobalOptions

    static func main() {
        CommandMain.run(Self.self, helpHint: "graft workbench --help")
    }

    func run() throws {
        if let flow = workbench.flow { _ = try FlowLoading.document(at: flow, json: options.json) }
        let host = options.makeHost(loadsFromCopies: true)
        var logger = Logger(label: "graft.workbench")
        logger.logLevel = options.logLevel
        let server: Workbench
        do throws(GraftError) {
            server = try Workbench(
                host: host,
                options: WorkbenchOptions(
                    port: workbench.port, flowPath: workbench.flow, attachSocket: workbench.attach,
                    watchesPlugins: !workbench.noWatch, debounce: .milliseconds(workbench.debounce), storiesFolder: workbench.stories),
                logger: logger)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        let json = options.json
        Task {
            do {
                let address = try await server.start()
                Self.announce(server, address: address, json: json)
            } catch {
                let failure = error as? WorkbenchError
                    ?? WorkbenchError(.portUnavailable, status: 500, "the workbench could not start: \(error).")
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
                    await server.stop()
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
