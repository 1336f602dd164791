import CSodium
import FoundationEssentials

/// minisign's key and signature formats (https://jedisct1.github.io/minisign/),
/// read and written, and its signatures checked and made with libsodium, as
/// the `minisign` tool itself does: a publisher may sign with either.
///
/// A signature file holds an untrusted comment, the signature of the file
/// (Ed25519 over the file's BLAKE2b-512, "prehashed", or over the file
/// itself, "legacy"), a trusted comment, and a global signature over the
/// file's signature and that comment. Only the trusted comment is bound to
/// the key; Graft's names the plugin's id, version and SHA-256.
package enum Minisign {
    /// Why a key or a signature file cannot be used, in a sentence.
    package struct Problem: Error, Sendable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A public key: its 8-byte key number and its Ed25519 key.
    package struct PublicKey: Sendable, Hashable {
        package let keyNumber: [UInt8]
        package let key: [UInt8]
        /// The key number as minisign prints it: 16 uppercase hex digits
        /// (kept: a warm host compares it once per signed plugin).
        package let id: String

        /// From a public key file's text, or from its base64 line alone
        /// (what `minisign -P` takes).
        package init(text: String) throws(Problem) {
            let lines = Minisign.lines(of: text)
            guard let line = lines.first(where: { !$0.hasPrefix("untrusted comment:") }) else {
                throw Problem("it holds no key (a minisign public key is a comment line and one line of base64)")
            }
            guard let bytes = Minisign.decode(Substring(line).utf8, length: 42) else {
                throw Problem("its key line is not a minisign public key (42 bytes of base64)")
            }
            guard bytes[0] == UInt8(ascii: "E"), bytes[1] == UInt8(ascii: "d") else {
                throw Problem("its key is not an Ed25519 minisign key")
            }
            keyNumber = Array(bytes[2..<10])
            key = Array(bytes[10..<42])
            id = Minisign.keyID(keyNumber)
        }

        init(keyNumber: [UInt8], key: [UInt8]) {
            self.keyNumber = keyNumber
            self.key = key
            id = Minisign.keyID(keyNumber)
        }

        /// The key's base64 line, as `minisign -P` takes it.
        package var line: String { Minisign.encode(Array("Ed".utf8) + keyNumber + key) }

        /// The key in a public key file's form.
        package var text: String { "untrusted comment: minisign public key \(id)\n" + line + "\n" }
    }

    /// A secret key, once its file is opened (with its password when sealed).
    package struct SecretKey: Sendable {
        let keyNumber: [UInt8]
        let key: [UInt8]

        package var id: String { Minisign.keyID(keyNumber) }

        /// The public half, which libsodium keeps in the last 32 bytes.
        package var publicKey: PublicKey { PublicKey(keyNumber: keyNumber, key: Array(key[32..<64])) }

        /// A new key pair with a random key number (benches and tests; a
        /// publisher makes its key with `minisign -G`).
        package static func generated() -> SecretKey {
            Minisign.start()
            var publicKey = [UInt8](repeating: 0, count: 32), secretKey = [UInt8](repeating: 0, count: 64)
            var keyNumber = [UInt8](repeating: 0, count: 8)
            crypto_sign_keypair(&publicKey, &secretKey)
            randombytes_buf(&keyNumber, 8)
            return SecretKey(keyNumber: keyNumber, key: secretKey)
        }

        private init(keyNumber: [UInt8], key: [UInt8]) {
            self.keyNumber = keyNumber
            self.key = key
        }

        /// Whether the key file's text is sealed with a password (scrypt).
        package static func isSealed(_ text: String) throws(Problem) -> Bool {
            try fields(of: text).kdf == Array("Sc".utf8)
        }

        /// From a secret key file's text; `password` opens a sealed one.
        package init(text: String, password: String?) throws(Problem) {
            Minisign.start()
            let fields = try Self.fields(of: text)
            var sealed = fields.sealed
            if fields.kdf == Array("Sc".utf8) {
                guard let password else { throw Problem("it is sealed with a password, and none was given") }
                var stream = [UInt8](repeating: 0, count: sealed.count)
                let derived = password.utf8CString.withUnsafeBufferPointer { word in
                    crypto_pwhash_scryptsalsa208sha256(
                        &stream, UInt64(stream.count), word.baseAddress!, UInt64(word.count - 1), fields.salt,
                        fields.opsLimit, Int(clamping: fields.memLimit))
                }
                guard derived == 0 else { throw Problem("its password could not be derived (out of memory?)") }
                for index in sealed.indices { sealed[index] ^= stream[index] }
            } else if fields.kdf != [0, 0] {
                throw Problem("it is sealed in a way minisign does not write")
            }
            let keyNumber = Array(sealed[0..<8]), key = Array(sealed[8..<72]), check = Array(sealed[72..<104])
            // minisign leaves an unsealed key's checksum empty (0.11 does).
            let unchecked = fields.kdf == [0, 0] && check.allSatisfy { $0 == 0 }
            guard unchecked || Minisign.blake2b(Array("Ed".utf8) + keyNumber + key, length: 32) == check else {
                throw Problem(fields.kdf == [0, 0] ? "its checksum does not hold: the file is damaged" : "the password is wrong, or the file is damaged")
            }
            // The public half must be the seed's: else every signature would fail to verify.
            var derivedPublic = [UInt8](repeating: 0, count: 32), derivedSecret = [UInt8](repeating: 0, count: 64)
            guard crypto_sign_seed_keypair(&derivedPublic, &derivedSecret, Array(key[0..<32])) == 0, derivedPublic == Array(key[32..<64]) else {
                throw Problem(fields.kdf == [0, 0] ? "its key does not hold together: the file is damaged" : "the password is wrong, or the file is damaged")
            }
            self.keyNumber = keyNumber
            self.key = key
        }

        private static func fields(of text: String) throws(Problem) -> (kdf: [UInt8], salt: [UInt8], opsLimit: UInt64, memLimit: UInt64, sealed: [UInt8]) {
            let lines = Minisign.lines(of: text)
            guard let line = lines.first(where: { !$0.hasPrefix("untrusted comment:") }), let bytes = Minisign.decode(Substring(line).utf8, length: 158) else {
                throw Problem("it is not a minisign secret key (a comment line and 158 bytes of base64)")
            }
            guard bytes[0..<2].elementsEqual("Ed".utf8), bytes[4..<6].elementsEqual("B2".utf8) else {
                throw Problem("it is not an Ed25519 minisign secret key")
            }
            func littleEndian(_ range: Range<Int>) -> UInt64 { range.reversed().reduce(0) { $0 << 8 | UInt64(bytes[$1]) } }
            return (Array(bytes[2..<4]), Array(bytes[6..<38]), littleEndian(38..<46), littleEndian(46..<54), Array(bytes[54..<158]))
        }
    }

    /// A signature file, read.
    package struct Signature: Sendable {
        /// Over the file's BLAKE2b-512 ("ED"), or over the file itself ("Ed").
        package let isPrehashed: Bool
        let keyNumber: [UInt8]
        let signature: [UInt8]
        package let trustedComment: String
        let globalSignature: [UInt8]

        /// The key number as minisign prints it.
        package let keyID: String

        /// The longest signature file read: minisign's comments are short.
        package static let maximumSize = 16 * 1024

        package init(text: String) throws(Problem) {
            // Split as bytes (a host reads a signature per plugin on a cold
            // start), at "\n", each line without a "\r" before it.
            let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
                line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            }
            guard lines.count >= 4, lines[0].starts(with: "untrusted comment:".utf8) else {
                throw Problem("it is not a minisign signature (an untrusted comment, a signature, a trusted comment and a global signature, one a line)")
            }
            guard let bytes = Minisign.decode(lines[1], length: 74) else {
                throw Problem("its second line is not a minisign signature (74 bytes of base64)")
            }
            switch (bytes[0], bytes[1]) {
            case (UInt8(ascii: "E"), UInt8(ascii: "D")): isPrehashed = true
            case (UInt8(ascii: "E"), UInt8(ascii: "d")): isPrehashed = false
            default: throw Problem("its signature is of a kind minisign does not make")
            }
            let prefix = "trusted comment: ".utf8
            guard lines[2].starts(with: prefix) else { throw Problem("its third line is not a trusted comment") }
            guard let global = Minisign.decode(lines[3], length: 64) else {
                throw Problem("its fourth line is not a global signature (64 bytes of base64)")
            }
            keyNumber = Array(bytes[2..<10])
            keyID = Minisign.keyID(keyNumber)
            signature = Array(bytes[10..<74])
            trustedComment = String(Substring(lines[2].dropFirst(prefix.count)))
            globalSignature = global
        }

        /// Checks the signature with `key`: of the file (`prehash` its
        /// BLAKE2b-512, or `whole` the file, for a legacy signature), then of
        /// the trusted comment. Says which failed, or nil.
        package func problem(verifiedWith key: PublicKey, prehash: [UInt8], whole: () -> [UInt8]?) -> String? {
            Minisign.start()
            guard key.keyNumber == keyNumber else { return "it was made by key \(keyID), not \(key.id)" }
            let message = isPrehashed ? prehash : (whole() ?? [])
            guard crypto_sign_verify_detached(signature, message, UInt64(message.count), key.key) == 0 else {
                return "it does not match the file: the file changed after it was signed, or the signature is another file's"
            }
            let global = signature + Array(trustedComment.utf8)
            guard crypto_sign_verify_detached(globalSignature, global, UInt64(global.count), key.key) == 0 else {
                return "its trusted comment was changed after it was signed"
            }
            return nil
        }

        /// A prehashed signature of a file whose BLAKE2b-512 is `prehash`,
        /// with `trustedComment`, in a signature file's form.
        package static func text(signing prehash: [UInt8], trustedComment: String, with key: SecretKey) -> String {
            Minisign.start()
            func sign(_ message: [UInt8]) -> [UInt8] {
                var signature = [UInt8](repeating: 0, count: 64)
                _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), key.key)
                return signature
            }
            let signature = sign(prehash)
            let global = sign(signature + Array(trustedComment.utf8))
            return """
                untrusted comment: signature from graft secret key \(key.id)
                \(Minisign.encode(Array("ED".utf8) + key.keyNumber + signature))
                trusted comment: \(trustedComment)
                \(Minisign.encode(global))

                """
        }
    }

    /// A running BLAKE2b-512, for a file read in blocks. Its state is
    /// libsodium's own size and alignment (Swift cannot import the aligned struct).
    package final class Prehash {
        private let state: UnsafeMutableRawPointer

        package init() {
            Minisign.start()
            state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
            _ = crypto_generichash_init(OpaquePointer(state), nil, 0, 64)
        }

        deinit { state.deallocate() }

        package func update(_ block: UnsafeRawBufferPointer) {
            _ = crypto_generichash_update(OpaquePointer(state), block.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(block.count))
        }

        package func finish() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 64)
            _ = crypto_generichash_final(OpaquePointer(state), &digest, 64)
            return digest
        }
    }

    // MARK: Helpers

    private static let started: Bool = sodium_init() >= 0

    /// libsodium ready (its own once: safe from any thread).
    static func start() {
        precondition(started, "libsodium could not start")
    }

    static func blake2b(_ bytes: [UInt8], length: Int) -> [UInt8] {
        start()
        var digest = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&digest, length, bytes, UInt64(bytes.count), nil, 0)
        return digest
    }

    static func keyID(_ keyNumber: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(keyNumber.count * 2)
        for byte in keyNumber.reversed() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Exactly `length` bytes of base64 (minisign's padded alphabet), or nil.
    static func decode(_ line: Substring.UTF8View, length: Int) -> [UInt8]? {
        // libsodium's base64 needs no `sodium_init` (which costs a host that only reads keys 50 µs).
        let text = Array(line)
        var bytes = [UInt8](repeating: 0, count: length)
        var count = 0
        let status = text.withUnsafeBufferPointer { text in
            text.withMemoryRebound(to: CChar.self) { text in
                sodium_base642bin(&bytes, length, text.baseAddress, text.count, nil, &count, nil, sodium_base64_VARIANT_ORIGINAL)
            }
        }
        return status == 0 && count == length ? bytes : nil
    }

    /// A key file's lines that hold anything, without their surrounding
    /// blanks. Split as bytes: as Characters, the generic views this needs
    /// cost a `graft list --publisher` a third of a millisecond to set up.
    static func lines(of text: String) -> [String] {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == 0x0B || byte == 0x0C }
        var lines: [String] = []
        for line in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            var start = line.startIndex, end = line.endIndex
            while start < end, isBlank(line[start]) { start = line.index(after: start) }
            while start < end, isBlank(line[line.index(before: end)]) { end = line.index(before: end) }
            if start < end { lines.append(String(Substring(line[start..<end]))) }
        }
        return lines
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
