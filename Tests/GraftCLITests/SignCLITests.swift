import Foundation
import GraftTestSupport
import Testing

/// `graft sign`, `graft verify`, and the command line's trusted publishers
/// (`--publisher`, `--require-signatures`, `--revoked-key`, the config file).
@Suite("graft sign, verify and trusted publishers")
struct SignCLITests {
    static func minisign(_ arguments: [String], input: String? = nil) throws -> CommandResult {
        let found = ["/usr/bin/minisign", "/usr/local/bin/minisign"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = try #require(found, "minisign not found: run Scripts/prerequisites.sh")
        return try runCommand(URL(fileURLWithPath: tool), arguments, input: input, timeout: .seconds(60))
    }

    /// test.echo and test.counter in `plugins/`, and an unsealed minisign key pair, acme.pub and acme.key.
    static func echoAndCounter(in scratch: borrowing Scratch) throws -> (folder: URL, echo: URL, pub: String, key: String) {
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        try Fixtures.build("good_counter", into: folder)
        let pub = scratch.file("acme.pub").path, key = scratch.file("acme.key").path
        #expect(try Self.minisign(["-G", "-W", "-p", pub, "-s", key]).status == 0)
        return (folder, echo, pub, key)
    }

    @Test("graft sign with a sealed key writes what minisign -Vm and graft verify accept; graft verify exits 1 with the refusal's code")
    func signAndVerify() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        let echo = try Fixtures.build("good_echo", into: folder)
        let pub = scratch.file("acme.pub").path, key = scratch.file("acme.key").path
        let made = try Self.minisign(["-G", "-p", pub, "-s", key], input: "secret\nsecret\n")
        #expect(made.status == 0, "minisign -G: \(made.stderr)")
        let cache = scratch.file("cache")

        let wrong = try graft(["sign", echo.path, "--secret-key", key], cache: cache, input: "guess\n")
        #expect(wrong.status == 1 && wrong.stderr.contains("invalid_key") && wrong.stderr.contains(key), "\(wrong.stderr)")
        let signed = try graft(["sign", echo.path, "--secret-key", key, "--json"], cache: cache, input: "secret\n")
        #expect(signed.status == 0, "\(signed.stderr)")
        let said = try #require(try parseJSON(signed.stdout) as? [String: Any])
        #expect(said["id"] as? String == "test.echo" && said["version"] as? String == "1.0.0")
        let verifiedByMinisign = try Self.minisign(["-Vm", echo.path, "-p", pub])
        #expect(verifiedByMinisign.status == 0, "\(verifiedByMinisign.stderr)")

        let verified = try graft(["verify", echo.path, "--public-key", pub], cache: cache)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("test.echo 1.0.0") && verified.stdout.contains(said["keyID"] as? String ?? "?"))

        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v2:\""])
        let changed = try graft(["verify", echo.path, "--public-key", pub], cache: cache)
        #expect(changed.status == 1 && changed.stderr.contains("signature_invalid"), "\(changed.stderr)")
        try FileManager.default.removeItem(atPath: echo.path + ".minisig")
        let missing = try graft(["verify", echo.path, "--public-key", pub], cache: cache)
        #expect(missing.status == 1 && missing.stderr.contains("signature_missing"), "\(missing.stderr)")
    }

    @Test("--publisher, --require-signatures, --revoked-key and the config file's publishers judge what graft list loads")
    func publishersOnTheCommandLine() throws {
        let scratch = try Scratch()
        let (folder, echo, pub, key) = try Self.echoAndCounter(in: scratch)
        let cache = scratch.file("cache")
        let common = ["list", "--json", "--only-plugin-path", "--plugin-path", folder.path]
        func listed(_ extra: [String]) throws -> (ids: [String], failures: [String: String]) {
            let result = try graft(common + extra, cache: cache)
            let object = try #require(try parseJSON(result.stdout) as? [String: Any], "\(result.stderr)")
            let ids = (object["plugins"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
            var failures: [String: String] = [:]
            for failure in object["failures"] as? [[String: Any]] ?? [] {
                failures[URL(fileURLWithPath: failure["path"] as? String ?? "").lastPathComponent] = failure["code"] as? String
            }
            return (ids, failures)
        }

        let unsigned = try listed(["--publisher", "test.echo=\(pub)"])
        #expect(unsigned.ids == ["test.counter"] && unsigned.failures["libgood_echo.so"] == "signature_missing")
        #expect(try graft(["sign", echo.path, "--secret-key", key], cache: cache).status == 0)
        #expect(try listed(["--publisher", "test.echo=\(pub)"]).ids == ["test.counter", "test.echo"])
        let required = try listed(["--publisher", "test.echo=\(pub)", "--require-signatures"])
        #expect(required.ids == ["test.echo"] && required.failures["libgood_counter.so"] == "signature_missing")
        // The key id as minisign prints it, in its public key file's comment: without leading zeros (one key
        // in sixteen has 15 digits there), which revokes the key as its 16-digit form does.
        #expect(try Self.minisign(["-Vm", echo.path, "-p", pub]).status == 0)
        let printed = try #require(String(contentsOfFile: pub, encoding: .utf8).split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        for keyID in [printed, String(repeating: "0", count: 16 - printed.count) + printed, String(printed.drop { $0 == "0" }).lowercased()] {
            let revoked = try listed(["--publisher", "test.echo=\(pub)", "--revoked-key", keyID])
            #expect(revoked.failures["libgood_echo.so"] == "key_revoked", "--revoked-key \(keyID): \(revoked)")
        }

        // The same publisher from the config file, and a config whose key file is gone stops the command.
        let config = cache.appendingPathComponent("config/graft/config.json")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"version": 1, "publishers": [{"name": "acme", "prefixes": ["test."], "keys": ["\#(pub)"]}], "requireSignatures": true}"#.utf8).write(to: config)
        let fromConfig = try listed([])
        #expect(fromConfig.ids == ["test.echo"] && fromConfig.failures["libgood_counter.so"] == "signature_missing")
        try Data(#"{"version": 1, "publishers": [{"name": "acme", "prefixes": ["test."], "keys": ["gone.pub"]}]}"#.utf8).write(to: config)
        let broken = try graft(common, cache: cache)
        #expect(broken.status == 2 && broken.stderr.contains("invalid_key") && broken.stderr.contains("gone.pub"), "\(broken.stderr)")

        // graft check warns of a plugin a host trusting the publisher would refuse, and still says the file is fine.
        try FileManager.default.removeItem(at: config)
        let checked = try graft(["check", echo.path, "--publisher", "test.echo=\(pub)", "--only-plugin-path"], cache: cache)
        #expect(checked.status == 0 && !checked.stdout.contains("warning: signature"), "\(checked.stdout) \(checked.stderr)")
        try FileManager.default.removeItem(atPath: echo.path + ".minisig")
        let unsignedCheck = try graft(["check", echo.path, "--publisher", "test.echo=\(pub)", "--only-plugin-path"], cache: cache)
        #expect(unsignedCheck.status == 0 && unsignedCheck.stdout.contains("warning: signature_missing"), "\(unsignedCheck.stdout) \(unsignedCheck.stderr)")

        let badValue = try graft(common + ["--publisher", "nokeyfile"], cache: scratch.file("cache-2"))
        #expect(badValue.status == 2 && badValue.stderr.contains("--publisher nokeyfile"), "\(badValue.stderr)")
    }

    @Test("graft list refuses each broken signature with its own code, lists the plugin beside it, and exits 0")
    func listRefusesEachBrokenSignature() throws {
        let scratch = try Scratch()
        let (folder, echo, pub, key) = try Self.echoAndCounter(in: scratch)
        let strangerPub = scratch.file("stranger.pub").path, strangerKey = scratch.file("stranger.key").path
        #expect(try Self.minisign(["-G", "-W", "-p", strangerPub, "-s", strangerKey]).status == 0)
        let signaturePath = echo.path + ".minisig"
        let hash = String(try runCommand(URL(fileURLWithPath: "/usr/bin/sha256sum"), [echo.path]).stdout.prefix(64))
        var round = 0

        func listed(_ extra: [String] = []) throws -> (ids: [String], echoFailure: String?) {
            // A cache of its own each time: every list scans and judges anew.
            round += 1
            let result = try graft(
                ["list", "--json", "--only-plugin-path", "--plugin-path", folder.path, "--publisher", "test.echo=\(pub)"] + extra,
                cache: scratch.file("cache-\(round)"))
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try parseJSON(result.stdout) as? [String: Any], "\(result.stderr)")
            let ids = (object["plugins"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
            let failure = (object["failures"] as? [[String: Any]] ?? []).first { $0["path"] as? String == echo.path }
            return (ids, failure?["code"] as? String)
        }
        func expectRefusal(_ code: String, _ what: String, _ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
            // The folder: its files are scanned together, and their signatures verified meanwhile.
            let (ids, failure) = try listed(extra)
            #expect(failure == code, "\(what): \(failure ?? "loaded")", sourceLocation: sourceLocation)
            #expect(ids == ["test.counter"], "\(what): the plugin beside it is listed", sourceLocation: sourceLocation)
            // The file alone: loaded and checked on its own, with the same verdict.
            round += 1
            let alone = try graft(
                ["list", "--json", "--only-plugin-path", "--plugin-path", echo.path, "--publisher", "test.echo=\(pub)"] + extra,
                cache: scratch.file("cache-\(round)"))
            let failures = (try parseJSON(alone.stdout) as? [String: Any])?["failures"] as? [[String: Any]] ?? []
            #expect(failures.first?["code"] as? String == code, "\(what), the file alone: \(alone.stdout) \(alone.stderr)", sourceLocation: sourceLocation)
        }
        func sign(with secretKey: String, id: String = "test.echo", version: String = "1.0.0") throws {
            try? FileManager.default.removeItem(atPath: signaturePath)
            let made = try Self.minisign(["-S", "-s", secretKey, "-m", echo.path, "-t", "graft id:\(id) version:\(version) sha256:\(hash)"])
            #expect(made.status == 0, "minisign -S: \(made.stderr)")
        }

        try sign(with: key)
        #expect(try listed().ids == ["test.counter", "test.echo"], "signed with minisign -S, it loads")

        // One byte changed: a letter of the compiler's note in .comment, which no loader reads.
        let original = try Data(contentsOf: echo)
        var changed = original
        let note = try #require(changed.firstRange(of: Data("GCC:".utf8)), "the fixture carries a .comment")
        changed[note.lowerBound] = UInt8(ascii: "X")
        try changed.write(to: echo)
        try expectRefusal("signature_invalid", "one byte changed in the .so")
        try original.write(to: echo)

        // Another file's signature: test.counter's own, put beside test.echo.
        let counter = folder.appendingPathComponent("libgood_counter.so").path
        #expect(try graft(["sign", counter, "--secret-key", key], cache: scratch.file("cache-sign")).status == 0)
        try FileManager.default.removeItem(atPath: signaturePath)
        try FileManager.default.moveItem(atPath: counter + ".minisig", toPath: signaturePath)
        try expectRefusal("signature_invalid", "a signature taken from another file")

        try sign(with: key, id: "test.other")
        try expectRefusal("signature_mismatch", "a trusted comment naming another id")
        try sign(with: key, version: "0.9.0")
        try expectRefusal("signature_mismatch", "a trusted comment naming another version")
        try sign(with: strangerKey)
        try expectRefusal("publisher_not_trusted", "an untrusted key")
        try expectRefusal("publisher_mismatch", "the right key for an id outside its prefixes", ["--publisher", "test.x.=\(strangerPub)"])

        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: signaturePath))
        try expectRefusal("signature_invalid", "a garbage .minisig")
        try sign(with: key)
        let valid = try String(contentsOfFile: signaturePath, encoding: .utf8)
        try (valid + String(repeating: "padding after the signature\n", count: 1000)).write(toFile: signaturePath, atomically: true, encoding: .utf8)
        try expectRefusal("signature_invalid", "a .minisig of more than 16 KiB")
        try FileManager.default.removeItem(atPath: signaturePath)
        #expect(mkfifo(signaturePath, 0o600) == 0)
        try expectRefusal("signature_invalid", "a FIFO for a .minisig")
        try FileManager.default.removeItem(atPath: signaturePath)
        try valid.write(toFile: signaturePath + ".real", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: signaturePath, withDestinationPath: signaturePath + ".real")
        try expectRefusal("signature_invalid", "a symbolic link for a .minisig")
    }

    @Test("graft lock --by-publisher pins signed plugins to their key and version; graft list shows the signer; a newer signed build loads --locked without locking again")
    func lockByPublisher() throws {
        let scratch = try Scratch()
        let (folder, echo, pub, key) = try Self.echoAndCounter(in: scratch)
        let cache = scratch.file("cache"), lock = scratch.file("graft.lock").path
        #expect(try graft(["sign", echo.path, "--secret-key", key], cache: cache).status == 0)
        let common = ["--only-plugin-path", "--plugin-path", folder.path, "--lock-file", lock, "--publisher", "test.echo=\(pub)"]

        let listed = try graft(["list"] + common, cache: cache)
        #expect(listed.stdout.contains("signed by: acme (key "), "\(listed.stdout)")
        let inspected = try graft(["inspect", "echo"] + common, cache: cache)
        #expect(inspected.stdout.contains("signed by: acme (key "), "\(inspected.stdout)")
        let locked = try graft(["lock", "--by-publisher", "--json"] + common, cache: cache)
        #expect(locked.status == 0, "\(locked.stderr)")
        let pins = try #require((try parseJSON(locked.stdout) as? [String: Any])?["plugins"] as? [[String: Any]])
        let echoPin = try #require(pins.first { $0["id"] as? String == "test.echo" })
        #expect(echoPin["minimumVersion"] as? String == "1.0.0" && echoPin["publisherKey"] is String && echoPin["sha256"] is NSNull)
        #expect((pins.first { $0["id"] as? String == "test.counter" }?["sha256"] as? String)?.count == 64, "the unsigned plugin is pinned by hash")

        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PLUGIN_VERSION": "\"1.1.0\"", "ECHO_PREFIX": "\"v2:\""])
        #expect(try graft(["sign", echo.path, "--secret-key", key], cache: cache).status == 0)
        let updated = try graft(["try", "echo", "--locked"] + common, cache: cache)
        #expect(updated.status == 0 && updated.stdout.contains("v2:"), "\(updated.stdout) \(updated.stderr)")
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PLUGIN_VERSION": "\"0.9.0\""])
        #expect(try graft(["sign", echo.path, "--secret-key", key], cache: cache).status == 0)
        let rollback = try graft(["list", "--json", "--locked"] + common, cache: cache)
        let failures = try #require((try parseJSON(rollback.stdout) as? [String: Any])?["failures"] as? [[String: Any]])
        #expect(failures.first?["code"] as? String == "version_rollback")
    }
}

/// docs/Publishing.md, run: every `sh` block in order, in a scratch folder,
/// with the built graft first on PATH; then what its sentences promise.
@Suite("The publishing guide's commands")
struct PublishingGuideTests {
    static let guide = Fixtures.root.appendingPathComponent("docs/Publishing.md")

    /// The guide's shell blocks, continuation lines joined.
    static func blocks() throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        return text.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
            .map { $0.replacingOccurrences(of: "\\\n", with: " ") }
    }

    @Test("each block of the guide runs and exits 0, and the host refuses what the guide says it refuses")
    func guideRuns() throws {
        let scratch = try Scratch()
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = BuildProducts.folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PKG_CONFIG_PATH"] = "/nonexistent"
        environment["GRAFT_PLUGIN_PATH"] = nil
        environment["GRAFT_CONFIG"] = nil
        environment["XDG_CACHE_HOME"] = scratch.file("cache").path
        environment["XDG_CONFIG_HOME"] = scratch.file("config").path
        let blocks = try Self.blocks()
        #expect(blocks.count >= 7, "\(blocks.count) blocks")
        func run(_ script: String) throws -> CommandResult {
            try runCommand(URL(fileURLWithPath: "/bin/bash"), ["-euo", "pipefail", "-c", "cd '\(scratch.url.path)'\n" + script], environment: environment)
        }
        for block in blocks {
            let result = try run(block)
            #expect(result.status == 0, "\(block)\n\(result.stdout)\n\(result.stderr)")
        }
        // The last block revoked the key that signed the build: it no longer loads, with its code.
        let revoked = try run(
            "graft list --json --only-plugin-path --plugin-path weather/build --publisher com.example.=acme-2027.pub --revoked-key \"$(awk 'NR == 1 { print $NF }' acme.pub)\"")
        #expect(revoked.stdout.contains("\"key_revoked\""), "\(revoked.stdout) \(revoked.stderr)")
        let trusted = try run("graft list --json --only-plugin-path --plugin-path weather/build --publisher com.example.=acme.pub")
        #expect(trusted.stdout.contains("\"signer\""), "\(trusted.stdout) \(trusted.stderr)")
        let unsigned = try run("rm weather/build/libweather.so.minisig && graft list --json --only-plugin-path --plugin-path weather/build --publisher com.example.=acme.pub")
        #expect(unsigned.stdout.contains("\"signature_missing\""), "\(unsigned.stdout) \(unsigned.stderr)")
        let made = try run("make -C weather sign KEY=../acme.key && graft verify weather/build/libweather.so --public-key acme.pub")
        #expect(made.status == 0 && made.stdout.contains("com.example.weather"), "make sign: \(made.stdout) \(made.stderr)")
    }
}
