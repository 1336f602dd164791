import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost

/// `graft config`: the settings every command reads from the config file
/// (`CommandConfig`), so a choice lasts beyond one command.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Lasting settings every command reads: which plugin answers a bare name (prefer.NAME).",
        discussion: """
            The file is $GRAFT_CONFIG, else $XDG_CONFIG_HOME/graft/config.json, else ~/.config/graft/config.json. \
            A --prefer on the command line wins over it for the same name.
            """,
        subcommands: [List.self, Get.self, Set.self, Unset.self], defaultSubcommand: List.self)

    /// The config file's path; a usage error (exit 2) when no variable says where it is.
    static func path(json: Bool) -> String {
        guard let path = CommandConfig.defaultPath else {
            CommandFailure(
                error: GraftError(.invalidConfig, "no config file: set GRAFT_CONFIG, XDG_CONFIG_HOME or HOME to say where it is."), json: json
            ).report()
            Glibc.exit(2)
        }
        return path
    }

    /// The file's settings; a file that does not read is an error (exit 2,
    /// naming it) here, where a command would write over what it holds.
    static func read(_ path: String, json: Bool) -> CommandConfig {
        do {
            return try CommandConfig(contentsOf: path)
        } catch {
            CommandFailure(error: error, json: json).report()
            Glibc.exit(2)
        }
    }

    /// Writes `config` to `path`; a failure is said (`permission_denied`, naming the file) and exits 1.
    static func write(_ config: CommandConfig, to path: String, json: Bool) throws {
        do {
            try config.write(to: path)
        } catch {
            CommandFailure(error: error, json: json, exitCode: 1).report()
            throw ExitCode(1)
        }
    }

    /// The name a `prefer.NAME` key names; a usage error (exit 2) for any other key.
    static func preferredName(_ key: String, json: Bool) -> String {
        guard key.hasPrefix("prefer."), key.count > "prefer.".count else {
            CommandFailure(
                error: GraftError(
                    .invalidConfig,
                    "'\(key.escapingControls)' is not a setting; the settings are prefer.NAME, NAME being a bare component, validator or action name (prefer.date_picker).",
                    key: key),
                json: json
            ).report()
            Glibc.exit(2)
        }
        return String(key.dropFirst("prefer.".count))
    }

    struct Options: ParsableArguments {
        @Flag(help: "Print JSON instead of text.")
        var json = false
    }

    /// The setting `get`, `set` and `unset` name.
    struct Setting: ParsableArguments {
        @Argument(help: ArgumentHelp("The setting: prefer.NAME.", valueName: "key"))
        var key: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        /// The bare name `key` names; a usage error (exit 2) for a key that is not a setting.
        var name: String { Config.preferredName(key, json: json) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the config file's path and every setting in it.")

        @OptionGroup var options: Options

        func run() {
            let path = Config.path(json: options.json)
            let config = Config.read(path, json: options.json)
            if options.json {
                Output.json(.object(["file": .string(path), "prefer": .object(config.preferences.mapValues { .string($0) })]))
                return
            }
            Output.line("# \(path)\(FileManager.default.fileExists(atPath: path) ? "" : " (not written yet)")")
            for name in config.preferences.keys.sorted() { Output.line("prefer.\(name) = \(config.preferences[name]!)") }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one setting; exit 1 when it is not set.")

        @OptionGroup var setting: Setting

        func run() throws {
            let (key, name, json) = (setting.key, setting.name, setting.json)
            let config = Config.read(Config.path(json: json), json: json)
            guard let id = config.key(for: name).flatMap({ config.preferences[$0] }) else {
                if json { Output.json(.object([key: .null])) }
                throw ExitCode(1)
            }
            if json { Output.json(.object([key: .string(id)])) } else { Output.line(id) }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set one setting: prefer.NAME PLUGIN_ID makes that plugin answer the bare NAME.")

        @OptionGroup var setting: Setting

        @Argument(help: ArgumentHelp("Its value: a plugin id.", valueName: "value"))
        var value: String

        func run() throws {
            let (key, name, json) = (setting.key, setting.name, setting.json)
            if let problem = CommandConfig.problem(name: name, id: value) {
                CommandFailure(error: GraftError(.invalidConfig, problem, key: key), json: json).report()
                throw ExitCode(2)
            }
            let path = Config.path(json: json)
            var config = Config.read(path, json: json)
            // One entry per name, however it was written (echo, echo@1).
            while let old = config.key(for: name) { config.preferences[old] = nil }
            config.preferences[name] = value
            try Config.write(config, to: path, json: json)
            if json { Output.json(.object(["file": .string(path), key: .string(value)])) } else { Output.line("\(key) = \(value) (\(path))") }
        }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unset", abstract: "Remove one setting; exit 1 when it was not set.")

        @OptionGroup var setting: Setting

        func run() throws {
            let (key, name, json) = (setting.key, setting.name, setting.json)
            let path = Config.path(json: json)
            var config = Config.read(path, json: json)
            guard config.key(for: name) != nil else {
                if json { Output.json(.object([key: .null])) } else { Output.line("\(key) is not set in \(path)") }
                throw ExitCode(1)
            }
            while let old = config.key(for: name) { config.preferences[old] = nil }
            try Config.write(config, to: path, json: json)
            if json { Output.json(.object(["file": .string(path), "removed": .string(key)])) } else { Output.line("removed \(key) (\(path))") }
        }
    }
}
