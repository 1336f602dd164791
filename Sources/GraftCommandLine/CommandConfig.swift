import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import GraftSupport

/// The command line's lasting settings, which `graft config` writes and every
/// command reads: today, which plugin answers a bare name several plugins
/// declare (what `--prefer` chooses for one command).
///
///     {"version": 1, "prefer": {"date_picker": "dev.graft.date-picker"}}
///
/// The file is `$GRAFT_CONFIG`, else `$XDG_CONFIG_HOME/graft/config.json`,
/// else `~/.config/graft/config.json`. A `--prefer` for the same name wins
/// over the file. A file that does not read is said once (`invalid_config`,
/// naming it) and ignored: the command goes on as if it were absent.
package struct CommandConfig: Equatable, Sendable {
    /// Bare name (`date_picker`, `iso_date@1`) → the plugin id that answers it.
    package var preferences: [String: String] = [:]
    /// Trusted publishers (`"publishers": [{"name", "prefixes", "keys"}]`,
    /// key files relative to the file's folder), revoked key ids, and
    /// whether every plugin must be signed. Kept as written when
    /// `graft config` rewrites the file.
    package var publishers: [PublisherEntry] = []
    package var revokedKeys: [String] = []
    package var requireSignatures = false

    package struct PublisherEntry: Equatable, Sendable {
        package var name: String
        package var prefixes: [String]
        package var keyFiles: [String]
    }

    static let currentVersion = 1
    /// A config file is a few lines; one larger than this is not one.
    static let sizeLimit = 1 << 20

    package init(preferences: [String: String] = [:]) {
        self.preferences = preferences
    }

    /// Where the file is, or nil when neither GRAFT_CONFIG, XDG_CONFIG_HOME nor HOME says.
    package static var defaultPath: String? {
        // getenv, not ProcessInfo's environment: every command asks, and a copy of the whole environment costs its start.
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        if let path = variable("GRAFT_CONFIG"), !path.isEmpty { return path }
        if let xdg = variable("XDG_CONFIG_HOME"), xdg.hasPrefix("/") { return xdg + "/graft/config.json" }
        if let home = variable("HOME"), home.hasPrefix("/") { return home + "/.config/graft/config.json" }
        return nil
    }

    /// The file at `path`; empty when there is none. Throws `invalid_config`
    /// naming the file and what in it does not read.
    package init(contentsOf path: String) throws(GraftError) {
        var status = stat()
        guard lstat(path, &status) == 0 || errno != ENOENT else { return }
        // Bounded: GRAFT_CONFIG may name anything, /dev/zero included.
        let text = try BoundedFile.text(at: path, what: "the config file", code: .invalidConfig, limit: Self.sizeLimit)
        let value: GraftValue
        do {
            value = try GraftValue(json: text)
        } catch {
            throw GraftError(.invalidConfig, "the config file \(path) is not JSON: \(error.message)", path: path)
        }
        guard case .object(let fields) = value else {
            throw GraftError(.invalidConfig, "the config file \(path) is not a JSON object ({\"version\": 1, \"prefer\": {…}}).", path: path)
        }
        for key in fields.keys.sorted() where !Self.fieldNames.contains(key) {
            throw GraftError(
                .invalidConfig,
                "the config file \(path) has '\(key.escapingControls)', which Graft does not know; it knows \(Self.fieldNames.joined(separator: ", ")).", path: path)
        }
        guard case .number(Double(Self.currentVersion)) = fields["version"] ?? .number(Double(Self.currentVersion)) else {
            throw GraftError(.invalidConfig, "the config file \(path) has version \(fields["version"]!); this Graft reads version \(Self.currentVersion).", path: path)
        }
        guard case .object(let preferences) = fields["prefer"] ?? .object([:]) else {
            throw GraftError(.invalidConfig, "the config file \(path): prefer is not an object of NAME: PLUGIN_ID.", path: path)
        }
        for (name, id) in preferences.sorted(by: { $0.key < $1.key }) {
            guard case .string(let id) = id else {
                throw GraftError(.invalidConfig, "the config file \(path): prefer.\(name.escapingControls) is not a plugin id string.", path: path)
            }
            if let problem = Self.problem(name: name, id: id) {
                throw GraftError(.invalidConfig, "the config file \(path): \(problem)", path: path)
            }
            self.preferences[name] = id
        }
        try readSignatures(fields, path: path)
    }

    static let fieldNames = ["version", "prefer", "publishers", "revokedKeys", "requireSignatures"]

    private mutating func readSignatures(_ fields: [String: GraftValue], path: String) throws(GraftError) {
        func refuse(_ what: String) -> GraftError { GraftError(.invalidConfig, "the config file \(path): \(what)", path: path) }
        func strings(_ value: GraftValue?, _ what: String) throws(GraftError) -> [String] {
            guard case .list(let items)? = value ?? .list([]) else { throw refuse("\(what) is not a list of strings.") }
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item, !text.isEmpty else { throw refuse("\(what) is not a list of strings.") }
                strings.append(text)
            }
            return strings
        }
        guard case .list(let entries) = fields["publishers"] ?? .list([]) else {
            throw refuse("publishers is not a list of {\"name\", \"prefixes\", \"keys\"}.")
        }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        for (index, entry) in entries.enumerated() {
            guard case .object(let entry) = entry, case .string(let name)? = entry["name"] else {
                throw refuse("publishers[\(index)] is not an object with a name, prefixes and keys.")
            }
            let prefixes = try strings(entry["prefixes"], "publishers[\(index)].prefixes")
            let keys = try strings(entry["keys"], "publishers[\(index)].keys").map { $0.hasPrefix("/") ? $0 : folder + "/" + $0 }
            guard !prefixes.isEmpty, !keys.isEmpty else { throw refuse("publishers[\(index)] ('\(name.escapingControls)') needs prefixes and keys.") }
            publishers.append(PublisherEntry(name: name, prefixes: prefixes, keyFiles: keys))
        }
        revokedKeys = try strings(fields["revokedKeys"], "revokedKeys")
        for key in revokedKeys where SignaturePolicy.keyID(key) == nil {
            throw refuse("revokedKeys: '\(key.escapingControls)' is not a key id (up to 16 hex digits, as minisign prints it).")
        }
        guard case .bool(let required) = fields["requireSignatures"] ?? .bool(false) else { throw refuse("requireSignatures is not true or false.") }
        requireSignatures = required
    }

    /// The key the file keeps `name` under: the same name however written
    /// (`echo`, `echo@1`); nil when it has none.
    package func key(for name: String) -> String? {
        if preferences[name] != nil { return name }
        guard let reference = try? ComponentReference(parsing: name) else { return nil }
        return preferences.keys.sorted().first { (try? ComponentReference(parsing: $0)) == reference }
    }

    /// Why `name` → `id` cannot be a preference, or nil when it can.
    package static func problem(name: String, id: String) -> String? {
        guard let reference = try? ComponentReference(parsing: name), reference.plugin == nil else {
            return "prefer.\(name.escapingControls): '\(name.escapingControls)' is not a bare component, validator or action name (iso_date, date_picker@2)."
        }
        guard ComponentReference.isValidPluginID(id) else {
            return "prefer.\(name.escapingControls): '\(id.escapingControls)' is not a plugin id (dev.graft.date-picker)."
        }
        return nil
    }

    /// The file's text: keys sorted, one preference per line.
    package var text: String {
        let prefer = GraftValue.object(preferences.mapValues { .string($0) })
        let lines = preferences.keys.sorted().map { "    \(GraftValue.string($0).jsonText): \(GraftValue.string(preferences[$0]!).jsonText)" }
        let object = lines.isEmpty ? prefer.jsonText : "{\n" + lines.joined(separator: ",\n") + "\n  }"
        var text = "{\n  \"version\": \(Self.currentVersion),\n  \"prefer\": \(object)"
        if !publishers.isEmpty {
            let entries = publishers.map { entry in
                GraftValue.object([
                    "name": .string(entry.name), "prefixes": .list(entry.prefixes.map { .string($0) }),
                    "keys": .list(entry.keyFiles.map { .string($0) }),
                ]).jsonText
            }
            text += ",\n  \"publishers\": [\n    " + entries.joined(separator: ",\n    ") + "\n  ]"
        }
        if !revokedKeys.isEmpty { text += ",\n  \"revokedKeys\": " + GraftValue.list(revokedKeys.map { .string($0) }).jsonText }
        if requireSignatures { text += ",\n  \"requireSignatures\": true" }
        return text + "\n}\n"
    }

    /// Writes the file whole (a temporary file beside it, then rename),
    /// making its folder if it is missing. Throws `permission_denied` naming it.
    package func write(to path: String) throws(GraftError) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        do {
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw GraftError(.permissionDenied, "could not write the config file \(path): \(error)", path: path)
        }
    }

    /// The signature policy of the file at the default path. Unlike its
    /// preferences, a file that names publishers and does not read stops
    /// the command (exit 2): ignoring it would load unsigned what it guards.
    package static var lastingSignatures: SignaturePolicy {
        guard let path = defaultPath else { return SignaturePolicy() }
        func refuse(_ error: GraftError) -> Never {
            writeToStandardError("error: \(error.code.rawValue): \(error.message)\n")
            exit(2)
        }
        let config: CommandConfig
        do {
            config = try CommandConfig(contentsOf: path)
        } catch {
            let text = (try? BoundedFile.text(at: path, what: "the config file", code: .invalidConfig, limit: sizeLimit)) ?? ""
            guard ["publishers", "revokedKeys", "requireSignatures"].contains(where: { text.contains($0) }) else { return SignaturePolicy() }
            refuse(GraftError(error.code, error.message + " It names signature settings, so nothing loads until it is fixed.", path: path))
        }
        var publishers: [Publisher] = []
        for entry in config.publishers {
            do throws(GraftError) {
                publishers.append(try Publisher(name: entry.name, prefixes: entry.prefixes, keyFiles: entry.keyFiles))
            } catch {
                refuse(GraftError(error.code, "the config file \(path): \(error.message)", path: path))
            }
        }
        return SignaturePolicy(publishers: publishers, revokedKeys: Set(config.revokedKeys), requiresSignatures: config.requireSignatures)
    }

    /// The preferences of the file at the default path; a file that does not
    /// read is said on stderr, once, and counts as empty.
    package static var lastingPreferences: [String: String] {
        guard let path = defaultPath else { return [:] }
        do {
            return try CommandConfig(contentsOf: path).preferences
        } catch {
            writeToStandardError("warning: \(error.code.rawValue): \(error.message) Its settings are ignored until it is fixed.\n")
            return [:]
        }
    }
}
