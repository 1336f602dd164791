import ArgumentParser

import GraftHost
import Logging

/// Options every command takes, read by ArgumentParser into `settings`.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    private static let defaults = HostSettings()

    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp("A plugin folder or .so file, searched before GRAFT_PLUGIN_PATH and the default folders (repeatable).", valueName: "path"))
    package var pluginPaths: [String] = defaults.pluginPaths

    @Flag(help: "Search only --plugin-path: skip GRAFT_PLUGIN_PATH, the default folders and the executable's folder.")
    package var onlyPluginPath = defaults.onlyPluginPath

    @Flag(help: "Print JSON instead of text.")
    package var json = defaults.json

    @Flag(help: "Load plugin files that other users could have written (group- or world-writable, another owner). For development only.")
    package var allowUntrusted = defaults.allowUntrusted

    @Flag(help: "Load plugin files straight into this process, without the scanner child that survives crashes.")
    package var noScanner = defaults.noScanner

    @Flag(help: "Load only the plugins pinned in the lock file (--lock-file, default ./graft.lock): others are refused with plugin_not_pinned or hash_mismatch.")
    package var locked = defaults.locked

    @Option(help: ArgumentHelp("The lock file `graft lock` writes and --locked enforces.", valueName: "path"))
    package var lockFile: String = defaults.lockFile

    @Option(help: ArgumentHelp("Where plugin code runs: per-plugin (a child process each, the default), shared (one child for all) or in-process.", valueName: "mode"))
    package var isolation: Isolation = defaults.isolation

    @Flag(help: "Run plugin code in this process (the same as --isolation in-process): faster, but a crashing plugin takes graft down.")
    package var inProcess = defaults.inProcess

    @Option(help: ArgumentHelp("How child processes that run plugin code are sandboxed: enforced (the default: refuse to run plugins where the kernel cannot), best-effort, or off.", valueName: "mode"))
    package var sandbox: SandboxSettings.Mode = defaults.sandbox

    @Option(
        name: .customLong("grant"),
        help: ArgumentHelp("Grant a plugin a permission, as ID=PERMISSION: network:443, network:any, read:/folder or data (repeatable).", valueName: "id=permission"))
    package var grants: [String] = []

    @Option(
        name: .customLong("prefer"),
        help: ArgumentHelp("When several plugins declare a component, validator or action name, the one that answers it bare, as NAME=PLUGIN_ID (repeatable); the others answer only as PLUGIN_ID/NAME.", valueName: "name=id"))
    package var preferences: [String] = []

    @Option(
        name: .customLong("publisher"),
        help: ArgumentHelp("Trust a publisher's minisign public key to sign the plugins whose id starts with PREFIX, as PREFIX=KEYFILE (repeatable; two key files for one prefix while a key is rotated). Such a plugin then loads only with its signature, FILE.minisig.", valueName: "prefix=keyfile"))
    package var publishers: [String] = []

    @Flag(help: "Load only plugins signed by a trusted publisher (--publisher, or the config file's): every other plugin is refused.")
    package var requireSignatures = defaults.requireSignatures

    @Option(
        name: .customLong("revoked-key"),
        help: ArgumentHelp("Refuse every signature made with this key id (16 hex digits, as minisign prints it; repeatable).", valueName: "id"))
    package var revokedKeys: [String] = []

    @Option(help: ArgumentHelp("How long an isolated plugin's call may take before its process is killed, in seconds (validators: a quarter of it).", valueName: "seconds"))
    package var callTimeout: Double = defaults.callTimeout

    @Option(help: ArgumentHelp("An address-space limit for each isolated plugin's process, in MiB (default 512; 0: none).", valueName: "MiB"))
    package var memoryLimit: UInt64?

    @Option(help: ArgumentHelp("The most a plugin's data folder may hold, in MiB (default 64); graft lock records it for plugins granted one.", valueName: "MiB"))
    package var dataLimit: UInt64?

    @Flag(help: "Neither read nor write the registry cache: scan every plugin file again.")
    package var noCache = defaults.noCache

    @Option(help: ArgumentHelp("How long one plugin file may take to load in the scanner, in seconds.", valueName: "seconds"))
    package var scanTimeout: Double = defaults.scanTimeout

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    package var logLevel: Logger.Level = defaults.logLevel

    package var settings: HostSettings {
        var settings = HostSettings()
        settings.pluginPaths = pluginPaths
        settings.onlyPluginPath = onlyPluginPath
        settings.json = json
        settings.allowUntrusted = allowUntrusted
        settings.noScanner = noScanner
        settings.locked = locked
        settings.lockFile = lockFile
        settings.isolation = isolation
        settings.inProcess = inProcess
        settings.sandbox = sandbox
        settings.grants = grants
        settings.preferences = preferences
        settings.publishers = publishers
        settings.requireSignatures = requireSignatures
        settings.revokedKeys = revokedKeys
        settings.callTimeout = callTimeout
        settings.memoryLimit = memoryLimit
        settings.dataLimit = dataLimit
        settings.noCache = noCache
        settings.scanTimeout = scanTimeout
        settings.logLevel = logLevel
        return settings
    }

    /// A host with every plugin on the search path loaded (see `HostSettings.makeHost`).
    package func makeHost(loadsFromCopies: Bool = false) -> GraftHost {
        settings.makeHost(loadsFromCopies: loadsFromCopies)
    }

    package var scanning: Scanning { settings.scanning }

    package var searchPath: SearchPath { settings.searchPath }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension Isolation: ExpressibleByArgument {}
extension SandboxSettings.Mode: ExpressibleByArgument {}
