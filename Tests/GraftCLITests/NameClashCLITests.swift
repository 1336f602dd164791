import Foundation
import GraftTestSupport
import Testing

/// Two vendors' plugins declaring the same names, as a tester meets them on
/// the command line: `graft list` reports the clash, qualified names reach
/// each plugin, `--prefer` picks who answers a bare name, `graft validate`
/// says which plugin answered, and `graft check` warns before the clash.
@Suite(.timeLimit(.minutes(10)))
struct NameClashCLITests {
    @Test("list reports the clash, qualified names reach each plugin, --prefer picks the owner, check warns")
    func clash() async throws {
        try await offPool { try Self.runClash() }
    }

    /// The echo fixture twice, as two vendors': `test.echo` in a folder and
    /// `test.echo-b` (prefix "b:") as a file, with a cache folder for the runs.
    static func twoVendors(_ scratch: borrowing Scratch) throws -> (cache: URL, folder: URL, b: URL) {
        let folder = scratch.url.appendingPathComponent("plugins")
        _ = try Fixtures.build("good_echo", into: folder)
        let b = try Fixtures.build(
            "good_echo", into: scratch.url.appendingPathComponent("vendor-b"),
            defines: ["ECHO_PLUGIN_ID": "\"test.echo-b\"", "ECHO_PREFIX": "\"b:\"", "ECHO_NATIVE_NAME": "\"is_even_b\""],
            outputName: "libgood_echo_b.so")
        return (scratch.file("cache"), folder, b)
    }

    static func runClash() throws {
        let scratch = try Scratch()
        let (cache, folder, b) = try twoVendors(scratch)
        let both = ["--only-plugin-path", "--plugin-path", folder.path, "--plugin-path", b.path]

        // Before it is installed: check warns about every name the file shares with the search path.
        let checked = try graft(["check", b.path, "--only-plugin-path", "--plugin-path", folder.path], cache: cache)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("warning: component 'echo@1' is also declared by test.echo"), "\(checked.stdout)")
        #expect(checked.stdout.contains("warning: validator 'nonempty@1'") && checked.stdout.contains("warning: action 'echo_action@1'"))
        #expect(!checked.stdout.contains("is_even_b"))
        // The conformance checker says the same beside its report, and passes the file all the same.
        let conformed = try graft(["check", "--conformance", "--only", "entry-and-abi", b.path, "--only-plugin-path", "--plugin-path", folder.path], cache: cache)
        #expect(conformed.status == 0, "\(conformed.stdout)\(conformed.stderr)")
        #expect(conformed.stdout.contains("warning: component 'echo@1' is also declared by test.echo"), "\(conformed.stdout)")

        let listed = try graft(["list"] + both, cache: cache)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("test.echo-b"), "\(listed.stdout)")
        for code in ["duplicate_component", "duplicate_validator", "duplicate_action"] { #expect(listed.stdout.contains(code), "\(code)") }
        // The clashes are under their own heading: the plugin loaded, it did not fail.
        #expect(listed.stdout.contains("bare names another plugin answers (3); these plugins loaded, and answer them qualified:"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("failed to load"), "\(listed.stdout)")
        #expect(listed.stdout.contains("test.echo-b/echo@1"))

        let bare = try graft(["try", "echo", "--json"] + both, cache: cache)
        #expect((try parseJSON(bare.stdout) as? [String: Any])?["plugin"] as? String == "test.echo", "\(bare.stderr)")
        // The bare name is ambiguous: graft try says who answered it, and how to name either.
        let told = try graft(["try", "echo"] + both, cache: cache)
        #expect(told.stdout.contains("ambiguous_name: 'echo@1' is declared by 2 plugins; 'test.echo' answers it."), "\(told.stdout)\(told.stderr)")
        #expect(told.stdout.contains("'test.echo-b/echo@1'"), "\(told.stdout)")
        let qualified = try graft(["try", "test.echo-b/echo", "--json"] + both, cache: cache)
        #expect((try parseJSON(qualified.stdout) as? [String: Any])?["plugin"] as? String == "test.echo-b", "\(qualified.stderr)")
        let preferred = try graft(["try", "echo", "--json", "--prefer", "echo=test.echo-b"] + both, cache: cache)
        #expect((try parseJSON(preferred.stdout) as? [String: Any])?["output"] as? String == "b:hello", "\(preferred.stderr)")

        let validated = try graft(["validate", "test.echo-b/nonempty", ""] + both, cache: cache)
        #expect(validated.status == 1)
        #expect(validated.stdout.hasPrefix("nonempty@1 from test.echo-b ("), "\(validated.stdout)")
        let json = try graft(["validate", "nonempty", "x", "--json", "--prefer", "nonempty=test.echo-b"] + both, cache: cache)
        #expect((try parseJSON(json.stdout) as? [String: Any])?["plugin"] as? String == "test.echo-b", "\(json.stdout)")

        let bad = try graft(["list", "--prefer", "echo"] + both, cache: cache)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--prefer echo: expected NAME=PLUGIN_ID"), "\(bad.stderr)")
    }

    @Test("graft config set prefer.NAME makes a choice last; --prefer wins over it; a broken file is said and ignored")
    func lastingPreference() async throws {
        try await offPool { try Self.runLastingPreference() }
    }

    static func runLastingPreference() throws {
        let scratch = try Scratch()
        let (cache, folder, b) = try twoVendors(scratch)
        let both = ["--only-plugin-path", "--plugin-path", folder.path, "--plugin-path", b.path]
        func answerer(_ extra: [String] = []) throws -> String? {
            let result = try graft(["try", "echo", "--json"] + extra + both, cache: cache)
            return (try parseJSON(result.stdout) as? [String: Any])?["plugin"] as? String
        }
        // The test helper keeps the config beside the cache: no developer's own file is read.
        let file = cache.appendingPathComponent("config/graft/config.json").path
        #expect(try answerer() == "test.echo")

        let set = try graft(["config", "set", "prefer.echo", "test.echo-b"], cache: cache)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("prefer.echo = test.echo-b (\(file))"), "\(set.stdout)")
        #expect(try answerer() == "test.echo-b")
        // Lasting: in a later command too, and in graft list's quick path, which names the other plugin's clash.
        let listed = try graft(["list"] + both, cache: cache)
        #expect(listed.stdout.contains("test.echo/echo@1"), "\(listed.stdout)")
        #expect(try answerer(["--prefer", "echo@1=test.echo"]) == "test.echo", "--prefer wins for the same name, however written")
        let shown = try graft(["config"], cache: cache)
        #expect(shown.stdout == "# \(file)\nprefer.echo = test.echo-b\n", "\(shown.stdout)")
        #expect(try graft(["config", "get", "prefer.echo"], cache: cache).stdout == "test.echo-b\n")
        // One entry per name, however it is written.
        #expect(try graft(["config", "set", "prefer.echo@1", "test.echo-b"], cache: cache).status == 0)
        #expect(try graft(["config"], cache: cache).stdout == "# \(file)\nprefer.echo@1 = test.echo-b\n")
        #expect(try graft(["config", "get", "prefer.echo"], cache: cache).stdout == "test.echo-b\n")

        let typo = try graft(["config", "set", "prefr.echo", "test.echo-b"], cache: cache)
        #expect(typo.status == 2 && typo.stderr.contains("invalid_config: 'prefr.echo' is not a setting"), "\(typo.stderr)")
        let badID = try graft(["config", "set", "prefer.echo", "not an id"], cache: cache)
        #expect(badID.status == 2 && badID.stderr.contains("'not an id' is not a plugin id"), "\(badID.stderr)")

        let unset = try graft(["config", "unset", "prefer.echo"], cache: cache)
        #expect(unset.status == 0, "\(unset.stderr)")
        #expect(try answerer() == "test.echo")
        #expect(try graft(["config", "get", "prefer.echo"], cache: cache).status == 1)

        // A file that does not read is said, naming it, and ignored; config refuses to write over it.
        try Data("{\"prefer\": {\"echo\": 3}}".utf8).write(to: URL(fileURLWithPath: file))
        let broken = try graft(["try", "echo", "--json"] + both, cache: cache)
        #expect(broken.status == 0)
        #expect(broken.stderr.contains("warning: invalid_config: the config file \(file): prefer.echo is not a plugin id string."), "\(broken.stderr)")
        let refused = try graft(["config", "set", "prefer.echo", "test.echo-b"], cache: cache)
        #expect(refused.status == 2 && refused.stderr.contains(file), "\(refused.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("3"), "the broken file is left as it was")
        // GRAFT_CONFIG may name anything: a folder or an endless device is said, never read without end.
        for (named, said) in [(scratch.url.path, "it is a folder, not a file"), ("/dev/zero", "is larger than 1 MiB")] {
            var environment = ProcessInfo.processInfo.environment
            environment["GRAFT_CONFIG"] = named
            let shown = try graft("config", environment: environment)
            #expect(shown.status == 2 && shown.stderr.contains("invalid_config:") && shown.stderr.contains(said), "\(shown.stderr)")
        }
    }
}
