/// How a flow names a component: `date_picker` (version 1) or `date_picker@2`.
public struct ComponentReference: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var version: Int

    public init(key: String, version: Int = 1) {
        self.key = key
        self.version = version
    }

    /// Parses `KEY` or `KEY@VERSION`. Throws `invalid_reference`.
    public init(parsing text: String) throws(GraftError) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
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
        self.init(key: key, version: version)
    }

    /// Keys, event names and param names: non-empty, `[a-z0-9_.-]`, at most 128 bytes.
    package static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 128
            && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D }
    }

    public var description: String { "\(key)@\(version)" }
}

/// A literal names a component the way validators and actions are named:
/// `host.makeInstance(of: "date_picker@2")`, as `host.validate("luhn@2", …)`.
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
