import ArgumentParser
import GraftHost
import Logging

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp("A plugin folder or .so file, searched before GRAFT_PLUGIN_PATH and the default folders (repeatable).", valueName: "path"))
    var pluginPaths: [String] = []

    @Flag(help: "Search only --plugin-path: skip GRAFT_PLUGIN_PATH, the default folders and the executable's folder.")
    var onlyPluginPath = false

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: Logger.Level = .error

    /// A host with every plugin on the search path loaded. `loadsFromCopies`
    /// for commands that reload plugins (see `GraftHost.loadsFromCopies`).
    func makeHost(loadsFromCopies: Bool = false) -> GraftHost {
        LoggingSetup.bootstrap(level: logLevel)
        let host = GraftHost(searchPath: searchPath, logger: Logger(label: "graft.host"), loadsFromCopies: loadsFromCopies)
        host.loadPlugins()
        return host
    }

    var searchPath: SearchPath {
        onlyPluginPath
            ? SearchPath.standard(explicit: pluginPaths, environment: [:], includeSystemFolders: false)
            : SearchPath.standard(explicit: pluginPaths)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
