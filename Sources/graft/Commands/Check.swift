import ArgumentParser
import GraftDebugger
import GraftHost

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load one plugin file on its own and report every problem: ABI, descriptors, debugConfigs, duplicates, signatures.",
        discussion: "Exits 0 only when the plugin is clean.")

    @Argument(help: ArgumentHelp("The plugin file.", valueName: "path.so"))
    var path: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let check = GraftHost.check(pluginAt: path)
        if json {
            var object: [String: GraftValue] = [
                "path": .string(path), "ok": .bool(check.isClean), "problems": .list(check.problems.map(\.json)),
            ]
            if let plugin = check.plugin { object["plugin"] = PluginReport.json(plugin: plugin) }
            Output.json(.object(object))
        } else if let plugin = check.plugin {
            Output.line("\(path): ok — \(plugin.id) \(plugin.version), ABI \(plugin.abi)")
            Output.line("  \(plugin.components.count) component(s), \(plugin.validators.count) validator(s), \(plugin.actions.count) action(s)")
        } else {
            Output.line("\(path): \(check.problems.count) problem\(check.problems.count == 1 ? "" : "s")")
            for problem in check.problems { Output.line("  \(problem.code.rawValue): \(problem.message)") }
        }
        if !check.isClean { throw ExitCode(1) }
    }
}
