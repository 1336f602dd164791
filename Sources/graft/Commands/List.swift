import ArgumentParser
import GraftDebugger
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every plugin on the search path with its components, validators and actions, then the plugins that failed to load.")

    @Flag(help: "List only the plugin files in quarantine: those that crashed or hung the scanner.")
    var quarantined = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let host = options.makeHost()
        var report = PluginReport(host: host)
        if quarantined {
            let held = Set(host.quarantined.map(\.path))
            report = PluginReport(
                plugins: [], failures: report.failures.filter { held.contains(FilePaths.resolvingSymlinks($0.path)) })
        }
        if options.json {
            Output.line(report.jsonText)
        } else {
            Output.line(report.text)
        }
    }
}
