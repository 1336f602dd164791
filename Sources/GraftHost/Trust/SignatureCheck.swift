import GraftMinisign

#if canImport(Glibc)
import Glibc
#endif

/// Judges a plugin file by its publisher's signature (`SignaturePolicy`):
/// reads `FILE.minisig` beside the file's real path as hostile input, checks
/// it against the publisher that owns the plugin's id, and refuses with a
/// code of its own for each way it can fail.
enum SignatureCheck {
    /// The file's SHA-256 (hex) and BLAKE2b-512, from one pass.
    struct Hashes: Sendable {
        let sha256: String
        let prehash: [UInt8]
    }

    /// A signature that held, as the registry cache keeps it with its
    /// file's entry: the next host that finds the same plugin file, the same
    /// signature file (device, inode, size and times, as the cache knows
    /// plugin files) and the same key trusted for its id need not hash and
    /// verify again (`quick`).
    struct Record: Sendable, Hashable {
        /// The signature file's device, inode, size and times when it held.
        var signatureFile: FileIdentity
        var keyID: String
        var key: [UInt8]
    }

    /// What the cache's record says of a plugin whose file is unchanged.
    enum QuickVerdict {
        /// The policy does not ask for this plugin's signature.
        case notAsked
        /// The recorded signature still holds under today's policy.
        case signed(PluginSigner)
        /// Only a full check can tell (no record, another signature file, a
        /// key no longer trusted for the id): it also gives the refusal.
        case unknown
    }

    /// `signatureFile`: what `stat` says of the signature file now, nil
    /// when there is none; a signature file rewritten, replaced or removed
    /// since the record is checked in full.
    static func quick(_ info: PluginDescription, signatureFile: FileIdentity?, record: Record?, policy: SignaturePolicy) -> QuickVerdict {
        guard policy.isActive else { return .notAsked }
        let owner = policy.owner(of: info.id)
        guard let owner else { return policy.requiresSignatures ? .unknown : .notAsked }
        guard let record, signatureFile == record.signatureFile, !policy.revokedKeys.contains(record.keyID),
            owner.publisher.keys.contains(where: { $0.id == record.keyID && $0.key == record.key })
        else { return .unknown }
        guard let key = owner.publisher.keys.first(where: { $0.id == record.keyID && $0.key == record.key }) else { return .unknown }
        return .signed(PluginSigner(publisher: owner.publisher.name, key: key))
    }

    /// The signer of `file`, which declares `info`; nil when the policy does
    /// not ask for its signature. Throws the refusal.
    static func check(_ file: PluginFile, declaring info: PluginDescription, policy: SignaturePolicy) throws(GraftError) -> PluginSigner? {
        try checkRecording(file, declaring: info, policy: policy)?.signer
    }

    /// What can be learnt of a file's signature before the scanner says
    /// what the file declares: the signature file read and parsed, the
    /// file hashed, and the signature checked against every trusted key with
    /// its key id. A cold start gathers it while the scanner child reads the
    /// file (`gather`); `checkRecording` then judges it against the owner of
    /// the declared id, in the same order and with the same refusals as
    /// without it.
    struct Evidence: Sendable {
        /// The plugin file's real path: its signature is the one beside it
        /// (hard links share an identity, not a signature).
        let realPath: String
        /// The signature file and its identity; nil when there is none; or why it cannot be used.
        let signature: Result<(signature: Minisign.Signature, file: FileIdentity)?, GraftError>
        /// The file's hashes, when the signature could be checked at all.
        var hashes: Result<Hashes, GraftError>?
        /// Each key tried, and why it did not hold (nil: it held).
        var tried: [(key: Minisign.PublicKey, problem: String?)] = []
    }

    /// The evidence for `file` under `policy` (nil when the policy asks for
    /// no signature), gathered on any thread.
    static func gather(_ file: PluginFile, policy: SignaturePolicy) -> Evidence? {
        guard policy.isActive else { return nil }
        var evidence = Evidence(realPath: file.realPath, signature: Result { () throws(GraftError) in try readParsed(file) })
        guard case .success(let read?) = evidence.signature else { return evidence }
        let signature = read.signature, keyID = signature.keyID
        guard !policy.revokedKeys.contains(keyID), signature.isPrehashed || file.size <= legacyLimit else { return evidence }
        var keys: [Minisign.PublicKey] = []
        for publisher in policy.publishers {
            for key in publisher.keys where key.id == keyID && !keys.contains(key) { keys.append(key) }
        }
        guard !keys.isEmpty else { return evidence }
        let hashes = Result { () throws(GraftError) in try hash(file) }
        evidence.hashes = hashes
        guard case .success(let hashed) = hashes else { return evidence }
        for key in keys {
            evidence.tried.append((key, signature.problem(verifiedWith: key, prehash: hashed.prehash, whole: { file.read(at: 0, count: file.size) })))
        }
        return evidence
    }

    /// `check`, with what the registry cache keeps of a signature that
    /// held; `evidence`, gathered earlier from the same open file, saves
    /// reading, hashing and verifying again.
    static func checkRecording(
        _ file: PluginFile, declaring info: PluginDescription, policy: SignaturePolicy, evidence: Evidence? = nil
    ) throws(GraftError) -> (signer: PluginSigner, record: Record)? {
        guard policy.isActive else { return nil }
        // Hard links share an identity, not a signature: only this path's own evidence counts.
        let evidence = evidence?.realPath == file.realPath ? evidence : nil
        let owner = policy.owner(of: info.id)
        guard owner != nil || policy.requiresSignatures else { return nil }
        let path = file.path
        let signaturePath = file.realPath + ".minisig"
        let why: String
        switch owner {
        case let owner? where owner.prefix.isEmpty: why = "it was to be checked against \(owner.publisher.name)"
        case let owner?: why = "plugin '\(info.id)' falls under the prefix '\(owner.prefix)' of publisher '\(owner.publisher.name)'"
        case nil: why = "this host requires every plugin to be signed"
        }

        guard let (signature, signatureFile) = try (evidence?.signature ?? Result { () throws(GraftError) in try readParsed(file) }).get() else {
            throw GraftError(
                .signatureMissing,
                "\(path) has no signature (\(signaturePath)), and \(why). Its publisher signs it with `graft sign` or `minisign -S`.",
                path: path)
        }
        let keyID = signature.keyID
        if policy.revokedKeys.contains(keyID) {
            throw GraftError(.keyRevoked, "\(path): its signature names key \(keyID), which this host has revoked.", path: path)
        }
        let holders = policy.publishers.filter { $0.keys.contains { $0.id == keyID } }
        guard let holder = holders.first else {
            throw GraftError(
                .publisherNotTrusted,
                "\(path): its signature names key \(keyID), which no trusted publisher has, and \(why).", path: path)
        }
        guard let owner, owner.publisher.keys.contains(where: { $0.id == keyID }) else {
            let may = holders.flatMap(\.prefixes).map { "'\($0)'" }.joined(separator: ", ")
            throw GraftError(
                .publisherMismatch,
                "\(path): its signature names key \(keyID) of publisher '\(holder.name)', which may sign ids under \(may) only, and \(why).",
                path: path)
        }
        let signer = owner.publisher
        if !signature.isPrehashed, file.size > Self.legacyLimit {
            throw GraftError(
                .signatureInvalid,
                "\(signaturePath), the signature of \(path), is minisign's legacy kind, which is checked over the whole file in memory, and the file is over \(Self.legacyLimit >> 20) MiB; sign it prehashed (minisign's default, and graft sign's).",
                path: path)
        }
        let hashes = try (evidence?.hashes ?? Result { () throws(GraftError) in try hash(file) }).get()
        // Key ids are chosen by whoever makes a key: every key of the owner with this id is tried.
        var failure = "no key of '\(signer.name)' with id \(keyID)"
        var verified: Minisign.PublicKey?
        for candidate in owner.publisher.keys where candidate.id == keyID {
            let problem =
                evidence?.tried.first(where: { $0.key == candidate }).map(\.problem)
                ?? signature.problem(verifiedWith: candidate, prehash: hashes.prehash, whole: { file.read(at: 0, count: file.size) })
            guard let problem else {
                verified = candidate
                break
            }
            failure = problem
        }
        guard let key = verified else {
            throw GraftError(.signatureInvalid, "\(signaturePath), the signature of \(path), does not hold: \(failure).", path: path)
        }
        let claims = Self.claims(in: signature.trustedComment)
        // Compared as bytes: a claim in another Unicode form is another id.
        for (name, expected) in [("id", info.id), ("version", info.version), ("sha256", hashes.sha256)]
        where !(claims[name].map { $0.utf8.elementsEqual(expected.utf8) } ?? false) {
            let said = claims[name].map { "'\($0.escapingControls)'" } ?? "nothing"
            throw GraftError(
                .signatureMismatch,
                "\(path): its signature by '\(signer.name)' (key \(keyID)) says \(name) \(said), but the file's \(name) is '\(expected)'. A signature binds one build of one plugin.",
                path: path)
        }
        return (PluginSigner(publisher: signer.name, key: key), Record(signatureFile: signatureFile, keyID: keyID, key: key.key))
    }

    /// The signature beside `file`'s real path, read and parsed; nil when there is none.
    private static func readParsed(_ file: PluginFile) throws(GraftError) -> (signature: Minisign.Signature, file: FileIdentity)? {
        let signaturePath = file.realPath + ".minisig"
        guard let (text, identity) = try readSignature(signaturePath, plugin: file.path) else { return nil }
        do throws(Minisign.Problem) {
            return (try Minisign.Signature(text: text), identity)
        } catch {
            throw GraftError(.signatureInvalid, "\(signaturePath), the signature of \(file.path), cannot be used: \(error.reason).", path: file.path)
        }
    }

    /// The `name:value` tokens of a trusted comment (minisign's own style:
    /// `timestamp:…`), split at blanks. A name given twice counts as not
    /// given: a comment may not say two ids.
    static func claims(in comment: String) -> [String: String] {
        var claims: [String: String] = [:], repeated: Set<String> = []
        for token in comment.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            guard let colon = token.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(Substring(token[..<colon]))
            if claims[name] != nil { repeated.insert(name) }
            claims[name] = String(Substring(token[token.index(after: colon)...]))
        }
        for name in repeated { claims[name] = nil }
        return claims
    }

    /// The trusted comment Graft signs: what a loading host checks, then when.
    static func trustedComment(id: String, version: String, sha256: String, time: Int) -> String {
        "graft id:\(id) version:\(version) sha256:\(sha256) timestamp:\(time)"
    }

    /// What `lstat` says of the signature file beside `realPath`, when it is a plain file.
    static func signatureFile(besides realPath: String) -> FileIdentity? {
        var status = stat()
        guard lstat(realPath + ".minisig", &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(status)
    }

    /// The largest file a legacy signature (over the whole file, in memory) is checked for.
    static let legacyLimit = 64 << 20

    /// The file's SHA-256 and BLAKE2b-512, read once.
    static func hash(_ file: PluginFile) throws(GraftError) -> Hashes {
        var sha = ContentHash.Running()
        let blake = Minisign.Prehash()
        try file.forEachBlock { block in
            sha.update(block)
            blake.update(block)
        }
        return Hashes(sha256: sha.finish(), prehash: blake.finish())
    }

    /// The signature file's text; nil when there is none. Anything but a
    /// small regular file (a link, a FIFO, a folder, a huge file) is refused.
    private static func readSignature(_ signaturePath: String, plugin path: String) throws(GraftError) -> (text: String, identity: FileIdentity)? {
        func refuse(_ reason: String) -> GraftError {
            GraftError(.signatureInvalid, "\(signaturePath), the signature of \(path), cannot be used: \(reason).", path: path)
        }
        let descriptor = open(signaturePath, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw refuse("it is a symbolic link (a signature is read only from a plain file)")
            default: throw refuse(String(cString: strerror(errno)))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw refuse("it is not a plain file")
        }
        let limit = Minisign.Signature.maximumSize
        guard status.st_size <= limit else { throw refuse("it is \(status.st_size) bytes, more than a signature's \(limit)") }
        // One byte more than `stat` said: a file that grew while read is seen.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw refuse(String(cString: strerror(errno))) }
            if got == 0 { break }
            count += got
        }
        guard count < bytes.count else { throw refuse("it grew while it was read") }
        guard let text = String(validating: bytes[0..<count], as: UTF8.self) else { throw refuse("it is not UTF-8 text") }
        return (text, FileIdentity(status))
    }
}
