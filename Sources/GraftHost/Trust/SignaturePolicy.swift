import GraftMinisign

/// Which publishers a host trusts to sign which plugins, in minisign's
/// format (`FILE.minisig` beside each plugin file). A plugin whose id falls
/// under a publisher's prefix loads only with a valid signature from one of
/// that publisher's keys, whose trusted comment names the plugin's id,
/// version and SHA-256; with `requiresSignatures`, every plugin must be so
/// signed. With no publisher and no requirement, signatures are not read.
public struct SignaturePolicy: Sendable {
    public var publishers: [Publisher]
    /// Key ids refused whoever lists them: hex, as minisign prints them
    /// (without leading zeros) or as Graft does (16 digits).
    public var revokedKeys: Set<String> {
        didSet { revokedKeys = Set(revokedKeys.map { Self.keyID($0) ?? $0.uppercased() }) }
    }
    /// Whether a plugin under no publisher's prefix is refused (else it loads unsigned).
    public var requiresSignatures: Bool

    public init(publishers: [Publisher] = [], revokedKeys: Set<String> = [], requiresSignatures: Bool = false) {
        self.publishers = publishers
        self.revokedKeys = Set(revokedKeys.map { Self.keyID($0) ?? $0.uppercased() })
        self.requiresSignatures = requiresSignatures
    }

    /// A key id as Graft writes it (16 uppercase hex digits) from one as a
    /// person may give it: minisign prints ids without their leading zeros
    /// (`%PRIX64`), so one key in sixteen has a 15-digit id there. Nil when
    /// `text` is no key id (not 1 to 16 hex digits).
    package static func keyID(_ text: String) -> String? {
        let digits = text.utf8.filter { $0 != UInt8(ascii: " ") }
        guard (1...16).contains(digits.count), digits.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 || UInt8(ascii: "A")...UInt8(ascii: "F") ~= $0 })
        else { return nil }
        return String(repeating: "0", count: 16 - digits.count) + String(decoding: digits, as: UTF8.self).uppercased()
    }

    /// Whether any plugin's signature is read at all.
    var isActive: Bool { requiresSignatures || !publishers.isEmpty }

    /// The publisher whose prefix is the longest that `id` starts with.
    func owner(of id: String) -> (publisher: Publisher, prefix: String)? {
        var best: (publisher: Publisher, prefix: String)?
        for publisher in publishers {
            // Bytes, not characters: `com.acme.` + a combining mark is one
            // character longer than `com.acme.`, and must still be Acme's.
            for prefix in publisher.prefixes where id.utf8.starts(with: prefix.utf8) && prefix.utf8.count > (best?.prefix.utf8.count ?? -1) {
                best = (publisher, prefix)
            }
        }
        return best
    }
}

/// A publisher: a name for messages, the plugin id prefixes it may sign
/// (`com.acme.`), and its minisign public keys (several while a key is
/// rotated).
public struct Publisher: Sendable {
    public let name: String
    public let prefixes: [String]
    let keys: [Minisign.PublicKey]

    /// The ids of its keys, as minisign prints them.
    public var keyIDs: [String] { keys.map(\.id) }

    /// `keys`: each a minisign public key as its file holds it, or its
    /// base64 line alone. A key that does not read is refused with
    /// `invalid_key`.
    public init(name: String, prefixes: [String], keys: [String]) throws(GraftError) {
        var read: [Minisign.PublicKey] = []
        for (index, text) in keys.enumerated() {
            do throws(Minisign.Problem) {
                read.append(try Minisign.PublicKey(text: text))
            } catch {
                throw GraftError(.invalidKey, "publisher '\(name)': key \(index + 1) cannot be used: \(error.reason).")
            }
        }
        guard !prefixes.isEmpty, prefixes.allSatisfy({ !$0.isEmpty }) else {
            throw GraftError(.invalidKey, "publisher '\(name)' names no plugin id prefix it may sign (com.acme., say).")
        }
        self.name = name
        self.prefixes = prefixes
        self.keys = read
    }

    /// A publisher that may sign any id with `key` (what `graft verify` asks).
    init(name: String, anyPrefixWith key: Minisign.PublicKey) {
        self.name = name
        prefixes = [""]
        keys = [key]
    }

    /// Reads each key file (`invalid_key` naming the file when one cannot be used).
    public init(name: String, prefixes: [String], keyFiles: [String]) throws(GraftError) {
        var texts: [String] = []
        for path in keyFiles {
            let text = try BoundedFile.text(at: path, what: "the public key file of publisher '\(name)'", code: .invalidKey, limit: 1 << 20)
            do throws(Minisign.Problem) {
                _ = try Minisign.PublicKey(text: text)
            } catch {
                throw GraftError(.invalidKey, "\(path), a public key file of publisher '\(name)', cannot be used: \(error.reason).", path: path)
            }
            texts.append(text)
        }
        try self.init(name: name, prefixes: prefixes, keys: texts)
    }
}

/// Who signed a plugin, once its signature held.
public struct PluginSigner: Sendable, Hashable {
    public let publisher: String
    public let keyID: String
    /// The key that verified the signature.
    let key: Minisign.PublicKey

    /// The key as a minisign public key's base64 line (what `graft lock
    /// --by-publisher` pins: key ids are chosen by whoever makes a key, so
    /// two keys may share one); made when asked, not per plugin listed.
    package var keyLine: String { key.line }

    init(publisher: String, key: Minisign.PublicKey) {
        self.publisher = publisher
        keyID = key.id
        self.key = key
    }

    public static func == (left: PluginSigner, right: PluginSigner) -> Bool {
        left.publisher == right.publisher && left.key == right.key
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(publisher)
        hasher.combine(key)
    }
}
