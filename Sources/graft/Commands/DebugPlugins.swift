import ArgumentParser
import GraftCommandLine
import GraftDebugger

struct DebugPlugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "The plugin report for the local search path: plugins that failed to load first, with why, then every plugin with its components, validators and actions.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let report = PluginReport(host: options.makeHost())
        if options.json {
            Output.line(report.jsonText)
        } else {
            Output.line(report.debuggerText)
        }
    }
}
