import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Pin the plugins on the search path: write their id, version, file name and SHA-256 to graft.lock.",
        discussion: """
            With --locked, every command (and a host whose configuration names the lock file) loads only files
            whose content the lock pins: a file it does not list is refused with plugin_not_pinned, a listed
            file whose content changed with hash_mismatch (both hashes named). Plugins that fail to load are
            not pinned; they are listed on stderr.
            """)

    @OptionGroup var options: GlobalOptions

    func run() throws {
        var unlocked = options
        unlocked.locked = false
        let host = unlocked.makeHost()
        var pins: [LockFile.Pin] = []
        let sandbox = options.settings.sandboxSettings
        for plugin in host.plugins {
            pins.append(LockFile.Pin(
                id: plugin.id, version: plugin.version, file: FilePaths.lastComponent(of: plugin.path),
                sha256: try GraftHost.contentHash(ofPluginAt: plugin.path), permissions: plugin.permissions.map(\.permission),
                dataLimit: sandbox.dataFolderLimit(forPlugin: plugin.id)))
        }
        let lock = LockFile(plugins: pins)
        try lock.write(to: options.lockFile)
        for failure in host.failures {
            writeToStandardError("not pinned: \(failure.path): \(failure.error.code.rawValue)\n")
        }
        if options.json {
            Output.json(.object([
                "lockFile": .string(options.lockFile),
                "plugins": .list(lock.plugins.map { .object(["id": .string($0.id), "version": .string($0.version), "file": .string($0.file), "sha256": .string($0.sha256), "permissions": .list(($0.permissions ?? []).map { .string($0) }), "dataLimit": $0.dataLimit.map { .number(Double($0)) } ?? .null]) }),
            ]))
        } else {
            Output.line("wrote \(options.lockFile): \(lock.plugins.count) plugin\(lock.plugins.count == 1 ? "" : "s") pinned")
            for pin in lock.plugins {
                let granted = pin.permissions.map { "  grants: \($0.joined(separator: ", "))" } ?? ""
                let limit = pin.dataLimit.map { "  data limit: \(FolderQuota.size($0))" } ?? ""
                Output.line("  \(pin.file)  \(pin.id) \(pin.version)  sha256:\(pin.sha256)\(granted)\(limit)")
            }
        }
    }
}
