import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import Logging
import Synchronization

/// Options every command takes.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp("A plugin folder or .so file, searched before GRAFT_PLUGIN_PATH and the default folders (repeatable).", valueName: "path"))
    package var pluginPaths: [String] = []

    @Flag(help: "Search only --plugin-path: skip GRAFT_PLUGIN_PATH, the default folders and the executable's folder.")
    package var onlyPluginPath = false

    @Flag(help: "Print JSON instead of text.")
    package var json = false

    @Flag(help: "Load plugin files that other users could have written (group- or world-writable, another owner). For development only.")
    package var allowUntrusted = false

    @Flag(help: "Load plugin files straight into this process, without the scanner child that survives crashes.")
    package var noScanner = false

    @Flag(help: "Load only the plugins pinned in the lock file (--lock-file, default ./graft.lock): others are refused with plugin_not_pinned or hash_mismatch.")
    package var locked = false

    @Option(help: ArgumentHelp("The lock file `graft lock` writes and --locked enforces.", valueName: "path"))
    package var lockFile: String = LockFile.defaultName

    @Option(help: ArgumentHelp("Where plugin code runs: per-plugin (a child process each, the default), shared (one child for all) or in-process.", valueName: "mode"))
    package var isolation: Isolation = .perPlugin

    @Flag(help: "Run plugin code in this process (the same as --isolation in-process): faster, but a crashing plugin takes graft down.")
    package var inProcess = false

    @Option(help: ArgumentHelp("How long an isolated plugin's call may take before its process is killed, in seconds (validators: a quarter of it).", valueName: "seconds"))
    package var callTimeout: Double = 2

    @Option(help: ArgumentHelp("An address-space limit for each isolated plugin's process, in MiB.", valueName: "MiB"))
    package var memoryLimit: UInt64?

    @Flag(help: "Neither read nor write the registry cache: scan every plugin file again.")
    package var noCache = false

    @Option(help: ArgumentHelp("How long one plugin file may take to load in the scanner, in seconds.", valueName: "seconds"))
    package var scanTimeout: Double = 10

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    package var logLevel: Logger.Level = .error

    /// A host with every plugin on the search path loaded. `loadsFromCopies`
    /// for commands that reload plugins (see `GraftHost.loadsFromCopies`).
    package func makeHost(loadsFromCopies: Bool = false) -> GraftHost {
        LoggingSetup.bootstrap(level: logLevel)
        requirePluginPaths()
        let searchPath = self.searchPath
        // Said whatever the log level: an ignored GRAFT_PLUGIN_PATH entry is why a plugin is missing.
        for warning in searchPath.warnings { writeToStandardError("warning: \(warning)\n") }
        let configuration = GraftConfiguration(
            searchPath: searchPath, trust: TrustPolicy(allowsUntrusted: allowUntrusted), loadsFromCopies: loadsFromCopies,
            scanning: scanning, cacheFolder: noCache ? nil : GraftConfiguration.defaultCacheFolder,
            lockFile: locked ? lockFile : nil, isolation: inProcess ? .inProcess : isolation,
            limits: IsolationLimits(
                call: .milliseconds(Int64(max(callTimeout, 0.001) * 1000)),
                validator: .milliseconds(Int64(max(callTimeout, 0.004) * 250)), memory: memoryLimit.map { $0 << 20 }))
        let host = GraftHost(configuration: configuration, logger: Logger(label: "graft.host"))
        host.loadPlugins()
        // Never released: the process exits with its plugins mapped, since a
        // thread a plugin started may still run in its image.
        Self.keptAlive.withLock { $0.append(host) }
        return host
    }

    /// A `--plugin-path` that names nothing is a mistake, not an empty
    /// folder: said with `plugin_path_not_found`, exit 2, before anything loads.
    private func requirePluginPaths() {
        for path in pluginPaths {
            var status = stat()
            guard lstat(path, &status) != 0 else { continue }
            CommandFailure(
                error: GraftError(
                    .pluginPathNotFound, "--plugin-path \(path): \(String(cString: strerror(errno))) (relative paths start at \(FileManager.default.currentDirectoryPath)).",
                    path: path),
                json: json
            ).report()
            Glibc.exit(2)
        }
    }

    package var scanning: Scanning {
        Scanning(inChild: !noScanner, deadline: .milliseconds(Int64(max(scanTimeout, 0.001) * 1000)))
    }

    private static let keptAlive = Mutex<[GraftHost]>([])

    package var searchPath: SearchPath {
        onlyPluginPath
            ? SearchPath.standard(explicit: pluginPaths, environment: [:], includeSystemFolders: false, executableFolder: nil)
            : SearchPath.standard(explicit: pluginPaths)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension Isolation: ExpressibleByArgument {}
