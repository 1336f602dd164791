import Foundation
import GraftMinisign
import GraftSupport
import GraftTestSupport
import Testing

@testable import GraftHost

/// Publishers' signatures (minisign's format, `FILE.minisig`): what loads,
/// and each refusal with its own code, the host alive and other plugins usable.
@Suite("Signatures by publishers")
struct SignatureTests {
    /// A minisign key pair made by the real `minisign` tool, unsealed.
    struct KeyPair {
        let publicKey: URL
        let secretKey: URL
        var publicText: String { (try? String(contentsOf: publicKey, encoding: .utf8)) ?? "" }
        var id: String { (try? Minisign.PublicKey(text: publicText).id) ?? "" }
    }

    static func minisign(_ arguments: [String], input: String? = nil) throws -> CommandResult {
        let found = ["/usr/bin/minisign", "/usr/local/bin/minisign"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = try #require(found, "minisign not found: run Scripts/prerequisites.sh")
        return try runCommand(URL(fileURLWithPath: tool), arguments, input: input, timeout: .seconds(60))
    }

    static func keyPair(_ name: String, in scratch: borrowing Scratch) throws -> KeyPair {
        let pair = KeyPair(publicKey: scratch.file("\(name).pub"), secretKey: scratch.file("\(name).key"))
        let made = try minisign(["-G", "-W", "-f", "-p", pair.publicKey.path, "-s", pair.secretKey.path])
        #expect(made.status == 0, "minisign -G: \(made.stderr)")
        return pair
    }

    /// Signs `file` with the `minisign` tool, its trusted comment naming
    /// `id`, `version` and `sha256` (the file's own by default).
    static func sign(
        _ file: URL, with key: KeyPair, id: String, version: String = "1.0.0", sha256: String? = nil, legacy: Bool = false
    ) throws {
        let hash = try sha256 ?? GraftHost.contentHash(ofPluginAt: file.path)
        let signed = try minisign(
            ["-S", "-s", key.secretKey.path, "-m", file.path, "-t", "id:\(id) version:\(version) sha256:\(hash)"] + (legacy ? ["-l"] : []))
        #expect(signed.status == 0, "minisign -S: \(signed.stderr)")
    }

    static func host(
        _ folder: URL, _ policy: SignaturePolicy, cache: URL, isolation: Isolation = .perPlugin, copies: Bool = false,
        alsoSearching more: [URL] = [], lockFile: URL? = nil
    ) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: ([folder] + more).map(\.path)), loadsFromCopies: copies, cacheFolder: cache.path,
                lockFile: lockFile?.path, isolation: isolation, signatures: policy),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    static func publisher(_ name: String, _ prefixes: [String], _ keys: KeyPair...) throws -> Publisher {
        try Publisher(name: name, prefixes: prefixes, keys: keys.map(\.publicText))
    }

    @Test("a plugin signed with the minisign tool loads under its publisher's prefix, prehashed and legacy; what Graft signs, minisign -Vm verifies")
    func signedLoads() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch)
        let policy = SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], acme)])
        for legacy in [false, true] {
            try Self.sign(echo, with: acme, id: "test.echo", legacy: legacy)
            let host = Self.host(folder, policy, cache: scratch.file("cache-\(legacy)"))
            #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
            #expect(try host.validate("is_even", value: 4).isValid)
        }

        // Graft's own signature: the minisign tool agrees, and so does a host.
        let info = try #require(Self.host(folder, SignaturePolicy(), cache: scratch.file("cache-plain")).plugins.first)
        let secret = try PluginSigning.secretKey(at: acme.secretKey.path) { nil }
        let (text, _) = try PluginSigning.signature(ofPluginAt: echo.path, declaring: info, key: secret)
        try Data(text.utf8).write(to: URL(fileURLWithPath: echo.path + ".minisig"))
        let verified = try Self.minisign(["-V", "-m", echo.path, "-p", acme.publicKey.path])
        #expect(verified.status == 0, "minisign -V: \(verified.stderr)")
        #expect(verified.stdout.contains("id:test.echo version:1.0.0 sha256:"))
        #expect(Self.host(folder, policy, cache: scratch.file("cache-graft")).failures.isEmpty)
        let key = try Minisign.PublicKey(text: acme.publicText)
        #expect(try PluginSigning.verify(pluginAt: echo.path, declaring: info, key: key, name: "acme") == PluginSigner(publisher: "acme", key: key))

        // Written with Windows line ends (a checkout with autocrlf): minisign reads it, so does Graft.
        let crlf = try String(contentsOfFile: echo.path + ".minisig", encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n")
        try crlf.write(toFile: echo.path + ".minisig", atomically: true, encoding: .utf8)
        #expect(Self.host(folder, policy, cache: scratch.file("cache-crlf")).failures.isEmpty)
    }

    @Test("every way a signature fails is refused with its own code, the host alive and the plugin beside it usable")
    func refusals() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let counter = try Fixtures.build("good_counter", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), stranger = try Self.keyPair("stranger", in: scratch)
        let policy = SignaturePolicy(publishers: [try Self.publisher("acme", ["test.echo"], acme)])
        let signaturePath = echo.path + ".minisig"
        var round = 0

        func expectRefusal(_ code: GraftError.Code, _ what: String, policy: SignaturePolicy = policy, sourceLocation: SourceLocation = #_sourceLocation) {
            round += 1
            let host = Self.host(folder, policy, cache: scratch.file("cache-\(round)"))
            let failure = host.failures.first { $0.path == echo.path }
            #expect(failure?.error.code == code, "\(what): \(failure.map { "\($0.error)" } ?? "loaded")", sourceLocation: sourceLocation)
            #expect(failure?.error.message.contains(echo.path) == true, "\(what): the refusal names the file", sourceLocation: sourceLocation)
            #expect(host.plugins.map(\.id) == ["test.counter"], "\(what)", sourceLocation: sourceLocation)
            #expect((try? host.validate("inits_are", value: 1).isValid) == true, "\(what): the plugin beside it works", sourceLocation: sourceLocation)
        }

        expectRefusal(.signatureMissing, "no signature")

        // A byte changed after signing.
        try Self.sign(echo, with: acme, id: "test.echo")
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"echo;\""])
        expectRefusal(.signatureInvalid, "one byte changed")

        // Another file's signature, comment and all.
        try Self.sign(counter, with: acme, id: "test.echo", sha256: try GraftHost.contentHash(ofPluginAt: echo.path))
        try FileManager.default.removeItem(atPath: signaturePath)
        try FileManager.default.moveItem(atPath: counter.path + ".minisig", toPath: signaturePath)
        expectRefusal(.signatureInvalid, "another file's signature")

        try Self.sign(echo, with: acme, id: "test.other")
        expectRefusal(.signatureMismatch, "a comment naming another id")
        try Self.sign(echo, with: acme, id: "test.echo", version: "0.9.0")
        expectRefusal(.signatureMismatch, "a comment naming another version")

        try Self.sign(echo, with: stranger, id: "test.echo")
        expectRefusal(.publisherNotTrusted, "an untrusted key")
        let twoPublishers = SignaturePolicy(publishers: [policy.publishers[0], try Self.publisher("stranger", ["test.x."], stranger)])
        expectRefusal(.publisherMismatch, "a trusted key outside its prefixes", policy: twoPublishers)

        try Self.sign(echo, with: acme, id: "test.echo")
        expectRefusal(.keyRevoked, "a revoked key", policy: SignaturePolicy(publishers: policy.publishers, revokedKeys: [acme.id.lowercased()]))

        // The comment edited after signing (the global signature no longer holds).
        var lines = try String(contentsOfFile: signaturePath, encoding: .utf8).components(separatedBy: "\n")
        lines[2] += " extra:1"
        try lines.joined(separator: "\n").write(toFile: signaturePath, atomically: true, encoding: .utf8)
        expectRefusal(.signatureInvalid, "an edited trusted comment")

        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: signaturePath))
        expectRefusal(.signatureInvalid, "a garbage .minisig")
        try Self.sign(echo, with: acme, id: "test.echo")
        let valid = try String(contentsOfFile: signaturePath, encoding: .utf8)
        try (valid + String(repeating: "padding after the signature\n", count: 1000)).write(toFile: signaturePath, atomically: true, encoding: .utf8)
        expectRefusal(.signatureInvalid, "a valid signature padded past 16 KiB")
        try FileManager.default.removeItem(atPath: signaturePath)
        #expect(mkfifo(signaturePath, 0o600) == 0)
        expectRefusal(.signatureInvalid, "a FIFO .minisig")
        try FileManager.default.removeItem(atPath: signaturePath)
        // A link to a signature that holds: refused for being a link.
        try Self.sign(echo, with: acme, id: "test.echo")
        try FileManager.default.moveItem(atPath: signaturePath, toPath: scratch.file("elsewhere.minisig").path)
        try FileManager.default.createSymbolicLink(atPath: signaturePath, withDestinationPath: scratch.file("elsewhere.minisig").path)
        expectRefusal(.signatureInvalid, "a symlink .minisig")
        try FileManager.default.removeItem(atPath: signaturePath)
        try Self.sign(counter, with: acme, id: "test.echo")

        // Signatures required: an unsigned plugin under no prefix is refused
        // too, and one signed by a key that may not sign its id.
        try Self.sign(echo, with: acme, id: "test.echo")
        let signedByAcme = Self.host(folder, SignaturePolicy(publishers: policy.publishers, requiresSignatures: true), cache: scratch.file("cache-acme"))
        #expect(signedByAcme.failures.first { $0.path == counter.path }?.error.code == .publisherMismatch)
        try FileManager.default.removeItem(atPath: counter.path + ".minisig")
        let required = Self.host(folder, SignaturePolicy(publishers: policy.publishers, requiresSignatures: true), cache: scratch.file("cache-required"))
        #expect(required.plugins.map(\.id) == ["test.echo"])
        #expect(required.failures.first { $0.path == counter.path }?.error.code == .signatureMissing)
    }

    @Test("a publisher rotates its key: builds signed with the old and the new key load without a change to the host, until the old one is revoked")
    func rotation() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let old = try Self.keyPair("old", in: scratch), new = try Self.keyPair("new", in: scratch)
        let rotating = SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], old, new)])
        try Self.sign(echo, with: old, id: "test.echo")
        #expect(Self.host(folder, rotating, cache: scratch.file("cache-1")).failures.isEmpty)
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PLUGIN_VERSION": "\"1.1.0\""])
        try Self.sign(echo, with: new, id: "test.echo", version: "1.1.0")
        let updated = Self.host(folder, rotating, cache: scratch.file("cache-2"))
        #expect(updated.plugins.map(\.version) == ["1.1.0"])
        try Self.sign(echo, with: old, id: "test.echo", version: "1.1.0")
        let revoked = SignaturePolicy(publishers: rotating.publishers, revokedKeys: [old.id])
        #expect(Self.host(folder, revoked, cache: scratch.file("cache-3")).failures.first?.error.code == .keyRevoked)
    }

    @Test("hot swap refuses an unsigned or wrongly signed rebuild, and the running build keeps serving", arguments: [Isolation.inProcess, .perPlugin])
    func swap(isolation: Isolation) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), stranger = try Self.keyPair("stranger", in: scratch)
        try Self.sign(echo, with: acme, id: "test.echo")
        let host = Self.host(folder, SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], acme)]), cache: scratch.file("cache"), isolation: isolation, copies: true)
        #expect(host.failures.isEmpty)
        let instance = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "a"])
        defer { instance.close() }

        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v2:\""])
        guard case .failed(let unsigned) = host.reload(pluginAt: echo.path).outcome else {
            Issue.record("a build its signature does not cover swapped in")
            return
        }
        #expect(unsigned.code == .signatureInvalid)
        try Self.sign(echo, with: stranger, id: "test.echo")
        guard case .failed(let stranger) = host.reload(pluginAt: echo.path, force: true).outcome else {
            Issue.record("a build signed by an untrusted key swapped in")
            return
        }
        #expect(stranger.code == .publisherNotTrusted)
        #expect(try instance.render().text == "echo:a", "the running build serves")
        try Self.sign(echo, with: acme, id: "test.echo")
        guard case .swapped = host.reload(pluginAt: echo.path, force: true).outcome else {
            Issue.record("the rightly signed build did not swap in")
            return
        }
        #expect(try instance.render().text == "v2:a")
    }

    @Test("a revoked key id is read as minisign prints it (no leading zeros) or as Graft does (16 digits); anything else is no key id")
    func revokedKeyIDs() {
        #expect(SignaturePolicy(revokedKeys: ["ab", "0123456789abcdef"]).revokedKeys == ["00000000000000AB", "0123456789ABCDEF"])
        var policy = SignaturePolicy()
        policy.revokedKeys = ["F00D"]
        #expect(policy.revokedKeys == ["000000000000F00D"])
        for text in ["", "xyz", "0123456789ABCDEF0", "-1"] { #expect(SignaturePolicy.keyID(text) == nil, "\(text)") }
    }

    @Test("hard links share an identity, not a signature: on a cold start each name is judged by the signature beside it")
    func hardLinksKeepTheirOwnSignatures() throws {
        let scratch = try Scratch()
        let unsignedFolder = scratch.url.appendingPathComponent("a"), signedFolder = scratch.url.appendingPathComponent("b")
        let echo = try Fixtures.build("good_echo", into: unsignedFolder)
        try FileManager.default.createDirectory(at: signedFolder, withIntermediateDirectories: true)
        let link = signedFolder.appendingPathComponent("libgood_echo.so")
        #expect(Glibc.link(echo.path, link.path) == 0)
        let acme = try Self.keyPair("acme", in: scratch)
        try Self.sign(link, with: acme, id: "test.echo")
        let policy = SignaturePolicy(publishers: [try Self.publisher("acme", ["test.echo"], acme)])
        let host = Self.host(unsignedFolder, policy, cache: scratch.file("cache"), alsoSearching: [signedFolder])
        #expect(host.failures.first { $0.path == echo.path }?.error.code == .signatureMissing, "\(host.failures.map(\.error))")
        #expect(host.plugins.map(\.path) == [link.path], "the name with its own signature loads")
    }

    @Test("a public key file that is garbage is refused naming that file, not its good neighbour; a lock whose publisherKey does not read is invalid_config naming the lock, and a locked host loads nothing by it")
    func badKeysAndLocks() throws {
        let scratch = try Scratch()
        let acme = try Self.keyPair("acme", in: scratch)
        let garbage = scratch.file("garbage.pub")
        try Data("untrusted comment: not a key\nthis is not base64 at all\n".utf8).write(to: garbage)
        let error = #expect(throws: GraftError.self) {
            try Publisher(name: "acme", prefixes: ["test."], keyFiles: [acme.publicKey.path, garbage.path])
        }
        #expect(error?.code == .invalidKey && error?.path == garbage.path, "\(String(describing: error))")
        #expect(error?.message.contains(garbage.path) == true && error?.message.contains(acme.publicKey.path) == false)

        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        let lock = scratch.file("graft.lock")
        try LockFile(plugins: [.init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", publisherKey: "RWQ-not-a-key", minimumVersion: "1.0.0")])
            .write(to: lock.path)
        let unreadable = #expect(throws: GraftError.self) { try LockFile(contentsOf: lock.path) }
        #expect(unreadable?.code == .invalidConfig && unreadable?.message.contains(lock.path) == true && unreadable?.message.contains("publisherKey") == true)
        let host = Self.host(folder, SignaturePolicy(), cache: scratch.file("cache"), lockFile: lock)
        #expect(host.plugins.isEmpty)
        #expect(host.failures.first?.error.code == .invalidConfig, "\(host.failures.map(\.error))")
    }

    @Test("a lock entry that pins a publisher: a newer signed build loads without locking again; an older one is version_rollback, another key's publisher_mismatch, an unsigned one signature_missing, at load and at hot swap")
    func publisherPin() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), stranger = try Self.keyPair("stranger", in: scratch)
        let lock = scratch.file("graft.lock")
        let keyLine = try #require(acme.publicText.split(separator: "\n").last.map(String.init))
        try LockFile(plugins: [.init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", publisherKey: keyLine, minimumVersion: "1.0.0")])
            .write(to: lock.path)
        var round = 0
        func locked(copies: Bool = false) -> GraftHost {
            round += 1
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [folder.path]), loadsFromCopies: copies, cacheFolder: scratch.file("cache-\(round)").path,
                    lockFile: lock.path),
                logger: quietLogger)
            host.loadPlugins()
            return host
        }
        func build(_ version: String, signedBy key: KeyPair?) throws {
            try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PLUGIN_VERSION": "\"\(version)\""])
            try? FileManager.default.removeItem(atPath: echo.path + ".minisig")
            if let key { try Self.sign(echo, with: key, id: "test.echo", version: version) }
        }

        try build("1.0.0", signedBy: acme)
        let first = locked(copies: true)
        #expect(first.failures.isEmpty, "\(first.failures.map(\.error))")
        #expect(first.plugins.first?.signer?.keyID == acme.id)
        try build("1.1.0", signedBy: acme)
        #expect(locked().plugins.map(\.version) == ["1.1.0"], "a newer build its publisher signed loads with the same lock")
        #expect(first.reload(pluginAt: echo.path).newVersion == "1.1.0", "and swaps in")

        try build("0.9.0", signedBy: acme)
        #expect(locked().failures.first?.error.code == .versionRollback)
        guard case .failed(let rollback) = first.reload(pluginAt: echo.path).outcome else {
            Issue.record("a rollback swapped in")
            return
        }
        #expect(rollback.code == .versionRollback)
        #expect(first.plugins.map(\.version) == ["1.1.0"], "the running build keeps serving")

        try build("1.2.0", signedBy: stranger)
        #expect(locked().failures.first?.error.code == .publisherMismatch)
        try build("1.2.0", signedBy: nil)
        #expect(locked().failures.first?.error.code == .signatureMissing)
    }

    @Test("versions are ordered as people write them")
    func versionOrder() {
        #expect(VersionOrder.isOlder("1.9.2", than: "1.10.0"))
        #expect(!VersionOrder.isOlder("1.10.0", than: "1.9.2"))
        #expect(VersionOrder.isOlder("2.0.0-beta", than: "2.0.0"))
        #expect(!VersionOrder.isOlder("2.0.0", than: "2.0.0-beta"))
        #expect(!VersionOrder.isOlder("1.0", than: "1.0.0"))
        #expect(VersionOrder.isOlder("1.0.0", than: "1.0.1"))
        #expect(!VersionOrder.isOlder("1.0.0", than: "1.0.0"))
        #expect(VersionOrder.isOlder("2.0.0-beta.9", than: "2.0.0-beta.10"))
        #expect(VersionOrder.isOlder("2.0.0-beta", than: "2.0.0-beta.1"))
        #expect(!VersionOrder.isOlder("2.0.0-rc.1", than: "2.0.0-beta.2"))
    }

    @Test("the registry cache keeps a signature that held, by the plugin file and its signature file: a warm host trusts it only while both are the same and the key is still trusted for the id")
    func cachedVerdict() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), stranger = try Self.keyPair("stranger", in: scratch)
        let cache = scratch.file("cache")
        let policy = SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], acme)])
        try Self.sign(echo, with: acme, id: "test.echo")
        #expect(Self.host(folder, policy, cache: cache).failures.isEmpty)
        let real = try #require(FilePaths.realPath(echo.path))
        let identity = try PluginFile(opening: echo.path).identity
        #expect(RegistryCache(folder: cache.path).signature(real, identity)?.keyID == acme.id, "the verdict is kept")

        let warm = Self.host(folder, policy, cache: cache)
        #expect(warm.failures.isEmpty)
        #expect(warm.plugins.first?.signer == PluginSigner(publisher: "acme", key: try Minisign.PublicKey(text: acme.publicText)), "the warm host says who signed it")
        #expect(Self.host(folder, SignaturePolicy(publishers: policy.publishers, revokedKeys: [acme.id]), cache: cache).failures.first?.error.code == .keyRevoked)
        let otherKey = SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], stranger)])
        #expect(Self.host(folder, otherKey, cache: cache).failures.first?.error.code == .publisherNotTrusted)

        // A new signature file (written by rename, as graft sign and minisign do) is read again.
        try Self.sign(echo, with: acme, id: "test.other")
        #expect(Self.host(folder, policy, cache: cache).failures.first?.error.code == .signatureMismatch)
        try Self.sign(echo, with: acme, id: "test.echo")
        #expect(Self.host(folder, policy, cache: cache).failures.isEmpty)
        try FileManager.default.removeItem(atPath: echo.path + ".minisig")
        #expect(Self.host(folder, policy, cache: cache).failures.first?.error.code == .signatureMissing)
    }

    @Test("two keys may share a key id (whoever makes a key chooses it): a key of another publisher with Acme's id signs nothing of Acme's, and the lock keeps the key that verified")
    func keyIDCollision() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), evil = try Self.keyPair("evil", in: scratch)
        // Evil's key with Acme's key number: a public key file is "Ed", the number, the key.
        let acmeKey = try Minisign.PublicKey(text: acme.publicText), evilKey = try Minisign.PublicKey(text: evil.publicText)
        let forged = Data(Array("Ed".utf8) + acmeKey.keyNumber + Array(Data(base64Encoded: evilKey.line)!.dropFirst(10))).base64EncodedString()
        // Evil signs with its secret key, then writes Acme's number into the signature line.
        try Self.sign(echo, with: evil, id: "test.echo")
        var lines = try String(contentsOfFile: echo.path + ".minisig", encoding: .utf8).components(separatedBy: "\n")
        var signatureBytes = Array(Data(base64Encoded: lines[1])!)
        signatureBytes.replaceSubrange(2..<10, with: acmeKey.keyNumber)
        lines[1] = Data(signatureBytes).base64EncodedString()
        try lines.joined(separator: "\n").write(toFile: echo.path + ".minisig", atomically: true, encoding: .utf8)
        let policy = SignaturePolicy(publishers: [
            try Publisher(name: "acme", prefixes: ["test.echo"], keys: [acme.publicText]),
            try Publisher(name: "evil", prefixes: ["test.evil."], keys: [forged]),
        ])
        let host = Self.host(folder, policy, cache: scratch.file("cache"))
        #expect(host.failures.first?.error.code == .signatureInvalid, "\(host.failures.map(\.error))")
        #expect(host.plugins.isEmpty)
    }

    @Test("a host that judges signatures maps nothing it could not judge first: without a scanner, a plugin is refused before its code runs")
    func noScanner() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let marker = scratch.file("marker")
        try Fixtures.build("good_marker", into: folder, defines: ["MARKER_PATH": "\"\(marker.path)\""])
        let acme = try Self.keyPair("acme", in: scratch)
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), scanning: Scanning(inChild: false), cacheFolder: nil, mapping: .atStart,
                isolation: .inProcess, sandbox: SandboxSettings(mode: .off),
                signatures: SignaturePolicy(publishers: [try Self.publisher("acme", ["test."], acme)], requiresSignatures: true)),
            logger: quietLogger)
        host.loadPlugins()
        #expect(host.failures.first?.error.code == .scannerUnavailable, "\(host.failures.map(\.error))")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin's constructor never ran")
    }

    @Test("a publisher pin refuses a build signed with a key the host revoked")
    func revokedUnderPin() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch)
        try Self.sign(echo, with: acme, id: "test.echo")
        let lock = scratch.file("graft.lock")
        try LockFile(plugins: [.init(id: "test.echo", version: "1.0.0", file: "libgood_echo.so", publisherKey: try Minisign.PublicKey(text: acme.publicText).line, minimumVersion: "1.0.0")])
            .write(to: lock.path)
        func host(_ revoked: Set<String>) -> GraftHost {
            let host = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, lockFile: lock.path,
                    signatures: SignaturePolicy(revokedKeys: revoked)),
                logger: quietLogger)
            host.loadPlugins()
            return host
        }
        #expect(host([]).failures.isEmpty)
        #expect(host([acme.id]).failures.first?.error.code == .keyRevoked)
    }

    @Test("hot swap refuses each broken signature with its code, and the running build keeps serving")
    func swapRefusals() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let acme = try Self.keyPair("acme", in: scratch), stranger = try Self.keyPair("stranger", in: scratch)
        try Self.sign(echo, with: acme, id: "test.echo")
        let policy = SignaturePolicy(publishers: [try Self.publisher("acme", ["test.echo"], acme), try Self.publisher("stranger", ["test.x."], stranger)])
        let host = Self.host(folder, policy, cache: scratch.file("cache"), isolation: .inProcess, copies: true)
        #expect(host.failures.isEmpty)
        let instance = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "a"])
        defer { instance.close() }
        let signaturePath = echo.path + ".minisig"
        var build = 0
        func rebuilt() throws {
            build += 1
            try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v\(build):\""])
            try? FileManager.default.removeItem(atPath: signaturePath)
        }
        let cases: [(String, GraftError.Code, () throws -> Void)] = [
            ("no signature", .signatureMissing, {}),
            ("another id", .signatureMismatch, { try Self.sign(echo, with: acme, id: "test.other") }),
            ("another version", .signatureMismatch, { try Self.sign(echo, with: acme, id: "test.echo", version: "2.0.0") }),
            ("a key outside its prefixes", .publisherMismatch, { try Self.sign(echo, with: stranger, id: "test.echo") }),
            ("garbage", .signatureInvalid, { try Data("garbage".utf8).write(to: URL(fileURLWithPath: signaturePath)) }),
            ("a FIFO", .signatureInvalid, { #expect(mkfifo(signaturePath, 0o600) == 0) }),
            ("a symlink", .signatureInvalid, {
                try Self.sign(echo, with: acme, id: "test.echo")
                try FileManager.default.moveItem(atPath: signaturePath, toPath: scratch.file("moved.minisig").path)
                try FileManager.default.createSymbolicLink(atPath: signaturePath, withDestinationPath: scratch.file("moved.minisig").path)
            }),
        ]
        for (what, code, breakIt) in cases {
            try rebuilt()
            try breakIt()
            guard case .failed(let error) = host.reload(pluginAt: echo.path, force: true).outcome else {
                Issue.record("\(what): the build swapped in")
                continue
            }
            #expect(error.code == code, "\(what): \(error)")
            #expect(try instance.render().text == "echo:a", "\(what): the running build serves")
            try? FileManager.default.removeItem(at: scratch.file("moved.minisig"))
        }
        let revoked = Self.host(folder, SignaturePolicy(publishers: policy.publishers, revokedKeys: [acme.id]), cache: scratch.file("cache-r"), isolation: .inProcess, copies: true)
        try rebuilt()
        try Self.sign(echo, with: acme, id: "test.echo")
        guard case .failed(let error) = revoked.reload(pluginAt: echo.path, force: true).outcome else {
            Issue.record("a build signed with a revoked key swapped in")
            return
        }
        #expect(error.code == .keyRevoked)
    }
}
