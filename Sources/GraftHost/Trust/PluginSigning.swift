import FoundationEssentials
import GraftMinisign

/// What `graft sign` and `graft verify` do to one plugin file whose id and
/// version a host has already read (from its scanner child).
package enum PluginSigning {
    /// A signature file's text for the plugin at `path`, which declares
    /// `info`: prehashed, its trusted comment naming the id, version and
    /// SHA-256 (`SignatureCheck.trustedComment`).
    package static func signature(ofPluginAt path: String, declaring info: PluginDescription, key: Minisign.SecretKey) throws(GraftError) -> (text: String, sha256: String) {
        try signature(ofPluginAt: path, id: info.id, version: info.version, key: key)
    }

    /// The same for a plugin whose id and version the caller knows.
    package static func signature(ofPluginAt path: String, id: String, version: String, key: Minisign.SecretKey) throws(GraftError) -> (text: String, sha256: String) {
        let file = try PluginFile(opening: path)
        let hashes = try SignatureCheck.hash(file)
        let comment = SignatureCheck.trustedComment(id: id, version: version, sha256: hashes.sha256, time: Int(Date().timeIntervalSince1970))
        return (Minisign.Signature.text(signing: hashes.prehash, trustedComment: comment, with: key), hashes.sha256)
    }

    /// The signer of the plugin at `path` (`FILE.minisig` beside it), which
    /// declares `info`, when `key` signed it for that id, version and
    /// content; else the refusal a host that trusts `key` would give.
    package static func verify(pluginAt path: String, declaring info: PluginDescription, key: Minisign.PublicKey, name: String) throws(GraftError) -> PluginSigner? {
        let file = try PluginFile(opening: path)
        let anyone = SignaturePolicy(publishers: [Publisher(name: name, anyPrefixWith: key)], requiresSignatures: true)
        return try SignatureCheck.check(file, declaring: info, policy: anyone)
    }

    /// Why a host with `policy` would refuse the plugin at `path`, which
    /// declares `info`, for its signature; nil when it would not (signed,
    /// or not asked to be).
    package static func refusal(ofPluginAt path: String, declaring info: PluginDescription, policy: SignaturePolicy) -> GraftError? {
        do throws(GraftError) {
            _ = try SignatureCheck.check(try PluginFile(opening: path), declaring: info, policy: policy)
            return nil
        } catch {
            return error
        }
    }

    /// The secret key file at `path`, opened with `password` when sealed
    /// (asked only then); `invalid_key` naming the file when it cannot be used.
    package static func secretKey(at path: String, password: () -> String?) throws(GraftError) -> Minisign.SecretKey {
        let text = try BoundedFile.text(at: path, what: "the secret key file", code: .invalidKey, limit: 1 << 20)
        do throws(Minisign.Problem) {
            return try Minisign.SecretKey(text: text, password: try Minisign.SecretKey.isSealed(text) ? password() : nil)
        } catch {
            throw GraftError(.invalidKey, "\(path): the secret key cannot be used: \(error.reason).", path: path)
        }
    }

    /// The public key file at `path`; `invalid_key` naming it when it cannot be used.
    package static func publicKey(at path: String) throws(GraftError) -> Minisign.PublicKey {
        let text = try BoundedFile.text(at: path, what: "the public key file", code: .invalidKey, limit: 1 << 20)
        do throws(Minisign.Problem) {
            return try Minisign.PublicKey(text: text)
        } catch {
            throw GraftError(.invalidKey, "\(path): the public key cannot be used: \(error.reason).", path: path)
        }
    }
}
