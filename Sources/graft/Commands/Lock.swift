import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost
import GraftSupport

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Pin the plugins on the search path: write their id, version, file name and SHA-256 to graft.lock.",
        discussion: """
            With --locked, every command (and a host whose configuration names the lock file) loads only files
            whose content the lock pins: a file it does not list is refused with plugin_not_pinned, a listed
            file whose content changed with hash_mismatch (both hashes named). Plugins that fail to load are
            not pinned; they are listed on stderr.

            With --by-publisher, a plugin whose signature holds for a trusted publisher (--publisher) is pinned to
            that publisher's key and its version as the minimum instead of its hash: a newer build its publisher
            signed then loads without locking again, an older one is refused with version_rollback, and one signed
            by another key with publisher_mismatch.
            """)

    @Flag(help: "Pin signed plugins to their publisher's key and a minimum version, not to one build's hash.")
    var byPublisher = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        var unlocked = options
        unlocked.locked = false
        let host = unlocked.makeHost()
        var pins: [LockFile.Pin] = []
        let sandbox = options.settings.sandboxSettings
        let policy = options.settings.signaturePolicy
        if byPublisher && policy.publishers.isEmpty {
            writeToStandardError("warning: --by-publisher without --publisher (or the config file's publishers): every plugin is pinned by its hash.\n")
        }
        for plugin in host.plugins {
            let file = FilePaths.lastComponent(of: plugin.path), permissions = plugin.permissions.map(\.permission)
            let dataLimit = sandbox.dataFolderLimit(forPlugin: plugin.id)
            if byPublisher, let signer = plugin.signer {
                pins.append(LockFile.Pin(
                    id: plugin.id, version: plugin.version, file: file, publisherKey: signer.keyLine, minimumVersion: plugin.version,
                    permissions: permissions, dataLimit: dataLimit))
            } else {
                pins.append(LockFile.Pin(
                    id: plugin.id, version: plugin.version, file: file, sha256: try GraftHost.contentHash(ofPluginAt: plugin.path),
                    permissions: permissions, dataLimit: dataLimit))
            }
        }
        let lock = LockFile(plugins: pins)
        try lock.write(to: options.lockFile)
        for failure in host.failures {
            writeToStandardError("not pinned: \(failure.path): \(failure.error.code.rawValue)\n")
        }
        if options.json {
            Output.json(.object([
                "lockFile": .string(options.lockFile),
                "plugins": .list(lock.plugins.map { .object(["id": .string($0.id), "version": .string($0.version), "file": .string($0.file), "sha256": $0.sha256.map { .string($0) } ?? .null, "publisherKey": $0.publisherKey.map { .string($0) } ?? .null, "minimumVersion": $0.minimumVersion.map { .string($0) } ?? .null, "permissions": .list(($0.permissions ?? []).map { .string($0) }), "dataLimit": $0.dataLimit.map { .number(Double($0)) } ?? .null]) }),
            ]))
        } else {
            Output.line("wrote \(options.lockFile): \(lock.plugins.count) plugin\(lock.plugins.count == 1 ? "" : "s") pinned")
            for pin in lock.plugins {
                let granted = pin.permissions.map { "  grants: \($0.joined(separator: ", "))" } ?? ""
                let limit = pin.dataLimit.map { "  data limit: \(FolderQuota.size($0))" } ?? ""
                let pinned = pin.sha256.map { "sha256:\($0)" } ?? "publisher key \(pin.publisherKey ?? "?"), \(pin.minimumVersion ?? "?") or later"
                Output.line("  \(pin.file)  \(pin.id) \(pin.version)  \(pinned)\(granted)\(limit)")
            }
        }
    }
}
