/// How a flow names a component, a validator or an action: `date_picker`
/// (version 1) or `date_picker@2`, which any plugin that owns the name
/// answers; or qualified by the plugin id, `dev.graft.date-picker/date_picker@2`,
/// which only that plugin answers. Two plugins may declare the same key +
/// version: one owns the bare name, and each answers its qualified name.
public struct ComponentReference: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var version: Int
    /// The plugin id the name is qualified by; nil for a bare name.
    public var plugin: String?

    public init(key: String, version: Int = 1, plugin: String? = nil) {
        self.key = key
        self.version = version
        self.plugin = plugin
    }

    /// Parses `KEY`, `KEY@VERSION`, `PLUGIN/KEY` or `PLUGIN/KEY@VERSION`.
    /// Throws `invalid_reference`.
    public init(parsing text: String) throws(GraftError) {
        var plugin: String?
        var rest = Substring(text)
        if let slash = text.firstIndex(of: "/") {
            let id = String(text[..<slash])
            guard Self.isValidPluginID(id) else {
                throw GraftError(
                    .invalidReference, "'\(text)' is qualified by '\(id)', which is not a plugin id (reverse DNS: letters, digits, '.', '-', '_').",
                    key: text)
            }
            plugin = id
            rest = text[text.index(after: slash)...]
        }
        let parts = rest.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let key = String(parts[0])
        guard Self.isValidKey(key) else {
            throw GraftError(
                .invalidReference, "'\(text)' does not name a component: keys are non-empty and use a-z, 0-9, '_', '.', '-'.",
                key: text)
        }
        var version = 1
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), parsed >= 1, parsed <= Int(UInt32.max) else {
                throw GraftError(.invalidReference, "'\(text)' has version '\(parts[1])'; versions are integers >= 1.", key: key)
            }
            version = parsed
        }
        self.init(key: key, version: version, plugin: plugin)
    }

    /// The same name, not qualified.
    public var bare: ComponentReference { ComponentReference(key: key, version: version) }

    /// The same name qualified by `pluginID`.
    public func qualified(by pluginID: String) -> ComponentReference {
        ComponentReference(key: key, version: version, plugin: pluginID)
    }

    /// Plugin ids: non-empty, letters, digits, '.', '-', '_', at most 128 bytes.
    package static func isValidPluginID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128
            && id.utf8.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D }
    }

    /// Keys, event names and param names: non-empty, `[a-z0-9_.-]`, at most 128 bytes.
    package static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 128
            && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D }
    }

    public var description: String { "\(plugin.map { "\($0)/" } ?? "")\(key)@\(version)" }

    /// As flows may write it: without `@1` for version 1.
    public var shortName: String { version == 1 ? "\(plugin.map { "\($0)/" } ?? "")\(key)" : description }
}

/// A literal names a component the way validators and actions are named:
/// `host.resolve("date_picker@2")`, as `host.validate("luhn@2", …)`
/// (`makeInstance(of:)` takes a `String` too, and throws for a bad one).
/// A malformed literal is a mistake in the source, caught on its first run
/// (like a bad regex literal); text read at run time goes through
/// `init(parsing:)`, which throws `invalid_reference`.
extension ComponentReference: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        do {
            try self.init(parsing: text)
        } catch {
            preconditionFailure(error.message)
        }
    }
}
