import ArgumentParser
import GraftDebugger
import GraftHost

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every plugin on the search path with its components, validators and actions, then the plugins that failed to load.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let report = PluginReport(host: options.makeHost())
        if options.json {
            Output.json(report.json)
        } else {
            Output.line(report.text)
        }
    }
}
