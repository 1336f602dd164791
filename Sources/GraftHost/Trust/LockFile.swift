import FoundationEssentials
import GraftMinisign
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// `graft.lock`: the plugins a host may load, pinned by content, after
/// Terraform's lock file and Extism's manifest hashes. `graft lock` writes it
/// for the plugins on the search path; a host in locked mode
/// (`GraftConfiguration.lockFile`, `--locked`) refuses any other file:
/// `plugin_not_pinned` for a file the lock does not list, `hash_mismatch`
/// (with both hashes) for a listed file name whose content changed. Each
/// entry also records the permissions the plugin declared when it was
/// locked: a locked host grants them, and refuses a pinned plugin that
/// declares more (see the Security article).
///
///     {"version": 1, "plugins": [{"id": "dev.acme.widgets", "version": "1.4.0",
///                                 "file": "libacme.so", "sha256": "9f86d0…",
///                                 "permissions": ["data", "network:443"], "dataLimit": 67108864}]}
package struct LockFile: Sendable, Hashable, Codable {
    package struct Pin: Sendable, Hashable, Codable {
        package var id: String
        package var version: String
        /// The file's name (not its folder: a locked set of plugins may be installed anywhere).
        package var file: String
        /// The content pinned; nil in an entry that pins a publisher instead.
        package var sha256: String?
        /// A publisher pin: the minisign public key (its base64 line) that
        /// must sign every build of this plugin, in place of one build's hash.
        package var publisherKey: String?
        /// With a publisher pin: the oldest version that may load (older
        /// signed builds are refused with `version_rollback`).
        package var minimumVersion: String?
        /// The permissions granted with the pin, as text (`network:443`);
        /// absent in lock files written before permissions existed: none.
        package var permissions: [String]?
        /// The most its data folder may hold, in bytes, when it is granted
        /// one; absent: the host's own limit.
        package var dataLimit: UInt64?

        package init(id: String, version: String, file: String, sha256: String, permissions: [Permission] = [], dataLimit: UInt64? = nil) {
            self.id = id
            self.version = version
            self.file = file
            self.sha256 = sha256
            self.permissions = permissions.isEmpty ? nil : permissions.map(\.description).sorted()
            self.dataLimit = permissions.contains(.dataFolder) ? dataLimit : nil
        }

        /// A publisher pin: any build of plugin `id` in `file` that `key`
        /// signed, at `minimumVersion` or later.
        package init(id: String, version: String, file: String, publisherKey key: String, minimumVersion: String, permissions: [Permission] = [], dataLimit: UInt64? = nil) {
            self.init(id: id, version: version, file: file, sha256: "", permissions: permissions, dataLimit: dataLimit)
            sha256 = nil
            publisherKey = key
            self.minimumVersion = minimumVersion
        }

        /// The granted permissions that read (`init(contentsOf:)` refuses a lock whose entries do not).
        var granted: [Permission] { (permissions ?? []).compactMap(Permission.init) }
    }

    package var version: Int
    package var plugins: [Pin]

    static let currentVersion = 1
    package static let defaultName = "graft.lock"

    package init(plugins: [Pin]) {
        version = Self.currentVersion
        self.plugins = plugins.sorted { ($0.file, $0.id) < ($1.file, $1.id) }
    }

    /// Reads and checks the lock file at `path`. Throws `invalid_config` naming it.
    package init(contentsOf path: String) throws(GraftError) {
        let data = Data(try BoundedFile.text(at: path, what: "the lock file", code: .invalidConfig).utf8)
        do {
            self = try JSONDecoder().decode(LockFile.self, from: data)
        } catch {
            throw GraftError(
                .invalidConfig, "the lock file \(path) is not a Graft lock file: \(GraftValue.describe(error))", path: path)
        }
        guard version == Self.currentVersion else {
            throw GraftError(
                .invalidConfig, "the lock file \(path) has version \(version); this Graft reads version \(Self.currentVersion).",
                path: path)
        }
        for pin in plugins {
            if let key = pin.publisherKey {
                guard (try? Minisign.PublicKey(text: key)) != nil, pin.minimumVersion != nil, pin.sha256 == nil else {
                    throw GraftError(
                        .invalidConfig,
                        "the lock file \(path) pins \(pin.file) to a publisher, but its publisherKey is not a minisign public key, or it lacks a minimumVersion, or it pins a sha256 too.",
                        path: path)
                }
            } else if let sha256 = pin.sha256, sha256.count == 64, sha256.allSatisfy(\.isHexDigit) {
                continue
            } else {
                throw GraftError(.invalidConfig, "the lock file \(path) pins \(pin.file) with '\(pin.sha256 ?? "nothing")', which is not a SHA-256.", path: path)
            }
        }
        for pin in plugins {
            for text in pin.permissions ?? [] where Permission(text) == nil {
                throw GraftError(
                    .invalidConfig,
                    "the lock file \(path) grants \(pin.file) '\(text.escapingControls)', which is not a permission (network:PORT[,PORT…], network:any, read:/folder, data).",
                    path: path)
            }
        }
    }

    /// Writes the file atomically (a temporary file beside it, then rename).
    package func write(to path: String) throws(GraftError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(self) + Data("\n".utf8)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw GraftError(.permissionDenied, "could not write the lock file \(path): \(String(describing: error))", path: path)
        }
    }

    /// Why the plugin described by `info`, whose file has content `hash`,
    /// may not load: it declares a permission its entry did not grant when
    /// it was locked. Nil when it may (or `hash` is not pinned: `violation` says so).
    func permissionViolation(of info: PluginDescription, hash: String, lockPath: String) -> GraftError? {
        guard let pin = pin(path: info.path, hash: hash) else { return nil }
        let granted = pin.granted
        let more = info.permissions.filter { !$0.permission.isCovered(by: granted) }
        guard !more.isEmpty else { return nil }
        return GraftError(
            .pluginNotPinned,
            "\(info.path) (\(info.id)) declares \(more.map { "\($0.permission) (\($0.reason.escapingControls))" }.joined(separator: ", ")), which its entry in \(lockPath) does not grant; run `graft lock` again to grant it, if you accept.",
            path: info.path)
    }

    /// Why the file of `info`, with content `hash`, may not load under its
    /// publisher pin (when its hash is not pinned itself): it is another
    /// plugin than the entry's, its signature does not hold for the pinned
    /// key (`SignatureCheck`'s codes; another key: `publisher_mismatch`), or
    /// it is older than the entry's minimum (`version_rollback`). Returns who
    /// signed it, or nil when no publisher pin applies.
    func publisherViolation(
        of file: PluginFile, declaring info: PluginDescription, hash: String, lockPath: String, revokedKeys: Set<String>
    ) throws(GraftError) -> PluginSigner? {
        guard !plugins.contains(where: { $0.sha256 == hash }), let pin = pin(path: info.path, hash: hash),
            let text = pin.publisherKey, let key = try? Minisign.PublicKey(text: text)
        else { return nil }
        let path = info.path
        guard pin.id == info.id else {
            throw GraftError(
                .pluginNotPinned,
                "\(path) is plugin '\(info.id)', but \(lockPath) pins \(pin.file) to the publisher of '\(pin.id)'; run `graft lock` again if the change is yours.",
                path: path)
        }
        let lock = Publisher(name: "the key \(lockPath) pins", anyPrefixWith: key)
        let signer: PluginSigner?
        do throws(GraftError) {
            signer = try SignatureCheck.check(
                file, declaring: info, policy: SignaturePolicy(publishers: [lock], revokedKeys: revokedKeys, requiresSignatures: true))
        } catch where error.code == .publisherNotTrusted {
            throw GraftError(
                .publisherMismatch, "\(error.message) \(lockPath) pins '\(info.id)' to key \(key.id).", path: path)
        }
        if let minimum = pin.minimumVersion, VersionOrder.isOlder(info.version, than: minimum) {
            throw GraftError(
                .versionRollback,
                "\(path) is '\(info.id)' \(info.version), older than \(minimum), the oldest \(lockPath) allows: a rollback to an older build is refused even when its publisher signed it.",
                path: path)
        }
        return signer
    }

    /// The data folder limits the lock sets, by plugin id.
    var dataLimits: [String: UInt64] {
        var limits: [String: UInt64] = [:]
        for pin in plugins { if let limit = pin.dataLimit { limits[pin.id] = limit } }
        return limits
    }

    /// The permissions the lock grants each plugin id.
    var grants: [String: [Permission]] {
        var grants: [String: [Permission]] = [:]
        for pin in plugins where !pin.granted.isEmpty { grants[pin.id, default: []] += pin.granted }
        return grants
    }

    /// The entry that lets the file `path` with content `hash` load: the one
    /// pinning its hash, else a publisher pin for its file name.
    func pin(path: String, hash: String) -> Pin? {
        if let pinned = plugins.first(where: { $0.sha256 == hash }) { return pinned }
        let name = FilePaths.lastComponent(of: path)
        return plugins.first { $0.file == name && $0.publisherKey != nil }
    }

    /// Whether any entry pins a publisher rather than a hash.
    var pinsPublishers: Bool { plugins.contains { $0.publisherKey != nil } }

    /// Why the file `path` with content `hash` may not load, or nil (a
    /// publisher pin is judged once the file's id is known: `publisherViolation`).
    func violation(path: String, hash: String, lockPath: String) -> GraftError? {
        if pin(path: path, hash: hash) != nil { return nil }
        let name = FilePaths.lastComponent(of: path)
        let pinned = plugins.filter { $0.file == name }
        if pinned.isEmpty {
            return GraftError(
                .pluginNotPinned,
                "\(path) is not pinned in \(lockPath) (no entry for \(name) or its SHA-256 \(hash)); run `graft lock` to pin the plugins you trust.",
                path: path)
        }
        return GraftError(
            .hashMismatch,
            "\(path) has SHA-256 \(hash), but \(lockPath) pins \(name) (\(pinned.map { "\($0.id) \($0.version)" }.joined(separator: ", "))) at \(pinned.compactMap(\.sha256).joined(separator: " or ")); it changed since it was locked. Run `graft lock` again if the change is yours.",
            path: path)
    }
}

extension GraftHost {
    /// The SHA-256 of the plugin file at `path`, as `graft.lock` pins it
    /// (streamed from the file, never read whole).
    package static func contentHash(ofPluginAt path: String) throws(GraftError) -> String {
        try ContentHash.of(PluginFile(opening: path))
    }
}

/// Orders version strings as people write them: dotted numbers compared as
/// numbers (`1.10.0` after `1.9.2`), a part that is not a number as text,
/// and a pre-release (`2.0.0-beta`) before its release.
enum VersionOrder {
    static func isOlder(_ version: String, than other: String) -> Bool {
        func split(_ text: String) -> (parts: [Substring], prerelease: Substring?) {
            let dash = text.firstIndex(of: "-")
            return (text[..<(dash ?? text.endIndex)].split(separator: "."), dash.map { text[text.index(after: $0)...] })
        }
        let (left, leftPre) = split(version), (right, rightPre) = split(other)
        if let order = compare(left, right, missing: "0") { return order }
        switch (leftPre, rightPre) {
        case (nil, _): return false
        case (_?, nil): return true
        case (let x?, let y?):
            // beta.9 before beta.10: a pre-release's parts compare as the version's do.
            return compare(x.split(separator: "."), y.split(separator: "."), missing: nil) ?? false
        }
    }

    /// Whether `left` comes first (nil: they are the same). A missing part is
    /// `missing`, or (nil) comes first, as a shorter pre-release does.
    private static func compare(_ left: [Substring], _ right: [Substring], missing: Substring?) -> Bool? {
        for index in 0..<max(left.count, right.count) {
            guard let a = index < left.count ? left[index] : missing else { return true }
            guard let b = index < right.count ? right[index] : missing else { return false }
            if a == b { continue }
            if let x = UInt64(a), let y = UInt64(b) { return x < y }
            return a < b
        }
        return nil
    }
}
