import ArgumentParser
import GraftCommandLine
import GraftHost

struct Quarantine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "Plugin files that crashed or hung the scanner: they are never loaded until they change.",
        subcommands: [Clear.self, Show.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List every quarantined file in the registry cache, with why.")

        @OptionGroup var options: GlobalOptions

        func run() throws {
            let host = GraftHost(configuration: GraftConfiguration(searchPath: SearchPath(folders: [])))
            let held = host.quarantined
            if options.json {
                Output.json(.object(["quarantined": .list(held.map { .object(["path": .string($0.path), "code": .string($0.error.code.rawValue), "message": .string($0.error.message)]) })]))
                return
            }
            if held.isEmpty { Output.line("no plugin file is quarantined") }
            for failure in held {
                Output.line(failure.path)
                Output.line("  \(failure.error.code.rawValue): \(failure.error.message)")
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Lift the quarantine of PATH, or of every file: it is scanned again the next time it is found.")

        @Argument(help: ArgumentHelp("The plugin file (default: every quarantined file).", valueName: "path.so"))
        var path: String?

        @OptionGroup var options: GlobalOptions

        func run() throws {
            let host = GraftHost(configuration: GraftConfiguration(searchPath: SearchPath(folders: [])))
            let lifted = host.clearQuarantine(pluginAt: path)
            if options.json {
                Output.json(.object(["lifted": .list(lifted.map { .string($0) })]))
            } else if lifted.isEmpty {
                Output.line(path.map { "\($0) is not quarantined" } ?? "no plugin file was quarantined")
            } else {
                for file in lifted { Output.line("lifted: \(file)") }
            }
        }
    }
}
