import ArgumentParser
import GraftDebugger
import GraftCommandLine
import GraftHost

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show one component's contract and debugConfig.")

    @Argument(help: ArgumentHelp("The component, as KEY or KEY@VERSION.", valueName: "key[@version]"))
    var component: String

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let host = options.makeHost()
        let registered: RegisteredComponent
        do throws(GraftError) {
            registered = try host.resolve(ComponentReference(parsing: component))
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 1)
        }
        if options.json {
            guard case .object(var object) = PluginReport.json(component: registered.contract) else { return }
            object["plugin"] = .string(registered.pluginID)
            object["path"] = .string(registered.pluginPath)
            Output.json(.object(object))
        } else {
            Output.line("plugin: \(registered.pluginID)  (\(registered.pluginPath))")
            if let description = registered.contract.description { Output.line(description) }
            for line in PluginReport.lines(component: registered.contract, indent: "") { Output.line(line) }
        }
    }
}
