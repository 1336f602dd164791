import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import Logging
import Synchronization

/// What the options every command takes say, as plain values: what a host
/// is made from, whichever parser read them (`GlobalOptions` through
/// ArgumentParser, or `graft list`'s quick path). The defaults here are the
/// options' defaults.
package struct HostSettings: Equatable, Sendable {
    package var pluginPaths: [String] = []
    package var onlyPluginPath = false
    package var json = false
    package var allowUntrusted = false
    package var noScanner = false
    package var locked = false
    package var lockFile = LockFile.defaultName
    package var isolation: Isolation = .perPlugin
    package var inProcess = false
    package var callTimeout: Double = 2
    package var memoryLimit: UInt64?
    package var noCache = false
    package var scanTimeout: Double = 10
    package var logLevel: Logger.Level = .error

    package init() {}

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
