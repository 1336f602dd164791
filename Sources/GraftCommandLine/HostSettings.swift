import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import GraftSupport
import Logging

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
    package var sandbox: SandboxSettings.Mode = .enforced
    /// `--grant ID=PERMISSION` as given.
    package var grants: [String] = []
    /// `--prefer NAME=PLUGIN_ID`, as given.
    package var preferences: [String] = []
    /// `--publisher PREFIX=KEYFILE` values, as given.
    package var publishers: [String] = []
    package var requireSignatures = false
    /// `--revoked-key ID` values, as given.
    package var revokedKeys: [String] = []
    /// False for a host that only reads a plugin to sign or verify it: no
    /// publisher, from the options or the config file, judges it.
    package var checksSignatures = true
    package var callTimeout: Double = 2
    package var memoryLimit: UInt64?
    /// `--data-limit MiB`: what each plugin's data folder may hold.
    package var dataLimit: UInt64?
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
        warnIfUnsandboxed()
        let configuration = GraftConfiguration(
            searchPath: searchPath, trust: TrustPolicy(allowsUntrusted: allowUntrusted), loadsFromCopies: loadsFromCopies,
            scanning: scanning, cacheFolder: noCache ? nil : GraftConfiguration.defaultCacheFolder,
            lockFile: locked ? lockFile : nil, isolation: inProcess ? .inProcess : isolation,
            limits: IsolationLimits(
                call: .milliseconds(Int64(max(callTimeout, 0.001) * 1000)),
                validator: .milliseconds(Int64(max(callTimeout, 0.004) * 250)), memory: memoryLimit.map { $0 == 0 ? nil : $0 << 20 } ?? IsolationLimits.defaultMemory),
            sandbox: sandboxSettings, preferredPlugins: preferredPlugins, signatures: signaturePolicy)
        let host = GraftHost(configuration: configuration, logger: Logger(label: "graft.host"))
        host.loadPlugins()
        // Said whatever the log level (below warning the host's log says it): a mistyped --grant id is why a plugin is refused.
        if logLevel > .warning {
            for (message, _) in host.grantWarnings() { writeToStandardError("warning: \(message)\n") }
        }
        // Never released: the process exits with its plugins mapped, since a
        // thread a plugin started may still run in its image.
        Self.keptAlive.withLock { $0.append(host) }
        return host
    }

    /// The config file's lasting choices (`graft config`), then `--prefer`'s,
    /// which win for the same name. A `--prefer` that does not read is a
    /// usage error (exit 2, naming it), reported before anything loads.
    package var preferredPlugins: [String: String] {
        var preferred = CommandConfig.lastingPreferences
        for preference in preferences {
            let parts = preference.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let name = try? ComponentReference(parsing: parts[0]), name.plugin == nil,
                ComponentReference.isValidPluginID(parts[1])
            else {
                CommandFailure(
                    error: GraftError(
                        .invalidConfig,
                        "--prefer \(preference.escapingControls): expected NAME=PLUGIN_ID, a bare component, validator or action name (iso_date, date_picker@2) and a plugin id (dev.graft.date-picker)."),
                    json: json
                ).report()
                Glibc.exit(2)
            }
            // The same name written another way in the file (date_picker, date_picker@1) gives way too.
            preferred = preferred.filter { (try? ComponentReference(parsing: $0.key)) != name }
            preferred[parts[0]] = parts[1]
        }
        return preferred
    }

    /// The config file's publishers (`graft config`), then `--publisher`'s:
    /// the key files given for one prefix are one publisher, named by its
    /// first key file, so a key is rotated by giving both. A value or key
    /// file that does not read is a usage error (exit 2, naming it),
    /// reported before anything loads.
    package var signaturePolicy: SignaturePolicy {
        func refuse(_ error: GraftError) -> Never {
            CommandFailure(error: error, json: json).report()
            Glibc.exit(2)
        }
        guard checksSignatures else { return SignaturePolicy() }
        var policy = CommandConfig.lastingSignatures
        var keyFiles: [(prefix: String, files: [String])] = []
        for value in publishers {
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                refuse(GraftError(.invalidKey, "--publisher \(value.escapingControls): expected PREFIX=KEYFILE, a plugin id prefix (com.acme.) and a minisign public key file."))
            }
            let prefix = String(value[..<equals]), file = String(value[value.index(after: equals)...])
            if let index = keyFiles.firstIndex(where: { $0.prefix == prefix }) {
                keyFiles[index].files.append(file)
            } else {
                keyFiles.append((prefix, [file]))
            }
        }
        for (prefix, files) in keyFiles {
            do throws(GraftError) {
                let name = FilePaths.lastComponent(of: files[0]).split(separator: ".").first.map(String.init) ?? files[0]
                policy.publishers.append(try Publisher(name: name, prefixes: [prefix], keyFiles: files))
            } catch {
                refuse(GraftError(error.code, "--publisher \(prefix.escapingControls)=…: \(error.message)", path: error.path))
            }
        }
        for key in revokedKeys {
            guard let id = SignaturePolicy.keyID(key) else {
                refuse(GraftError(.invalidKey, "--revoked-key \(key.escapingControls): expected a key id, up to 16 hex digits as minisign prints it."))
            }
            policy.revokedKeys.insert(id)
        }
        if requireSignatures { policy.requiresSignatures = true }
        return policy
    }

    /// The sandbox the options ask for; a `--grant` that does not read is a
    /// usage error (exit 2, naming it), reported before anything loads.
    package var sandboxSettings: SandboxSettings {
        var settings = SandboxSettings(mode: sandbox)
        if let dataLimit { settings.dataFolderLimit = dataLimit << 20 }
        for grant in grants {
            guard let equals = grant.firstIndex(of: "="), let permission = Permission(String(grant[grant.index(after: equals)...])),
                equals != grant.startIndex
            else {
                CommandFailure(
                    error: GraftError(
                        .invalidConfig,
                        "--grant \(grant.escapingControls): expected ID=PERMISSION, a permission being network:PORT[,PORT…], network:any, read:/absolute/folder or data."),
                    json: json
                ).report()
                Glibc.exit(2)
            }
            settings.grants[String(grant[..<equals]), default: []].append(permission)
        }
        return settings
    }

    /// Plugin code outside the sandbox is said on stderr, whatever the log
    /// level: in process, without a scanner, or with the sandbox off.
    package func warnIfUnsandboxed() {
        if inProcess || isolation == .inProcess {
            writeToStandardError("warning: plugin code runs in this process (--in-process, --ffi), outside the sandbox; only for plugins trusted like your own code.\n")
        } else if sandbox == .off {
            writeToStandardError("warning: --sandbox off: plugin code runs in child processes without the sandbox, with your rights and environment.\n")
        } else if !SandboxSupport.current.isComplete {
            // Said once, whatever the log level: the kernel decides what a plugin can do here.
            let missing = SandboxSupport.current.missing
            if sandbox == .enforced {
                writeToStandardError(
                    "error: sandbox_unavailable: this system cannot sandbox plugins (missing: \(missing)); no plugin code runs. --sandbox best-effort runs plugins with what the kernel has.\n")
            } else {
                writeToStandardError("warning: sandbox_unavailable: plugins run with a partial sandbox (missing: \(missing)).\n")
            }
        }
        if noScanner {
            writeToStandardError("warning: --no-scanner: plugin files load straight into this process, outside the sandbox (their constructors run here).\n")
        }
    }

    /// A `--plugin-path` that names nothing is a mistake, not an empty
    /// folder: said with `plugin_path_not_found`, exit 2, before anything loads.
    private func requirePluginPaths() {
        for path in pluginPaths {
            var status = stat()
            guard lstat(path, &status) != 0 else { continue }
            CommandFailure(
                error: CommandLineError(
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

    private static let keptAlive = Locked<[GraftHost]>([])

    package var searchPath: SearchPath {
        onlyPluginPath
            ? SearchPath.standard(explicit: pluginPaths, environment: [:], includeSystemFolders: false, executableFolder: nil)
            : SearchPath.standard(explicit: pluginPaths)
    }
}
