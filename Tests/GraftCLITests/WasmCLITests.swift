import Foundation
import GraftTestSupport
import Testing

/// A WebAssembly plugin through the command line: listed with where it runs,
/// inspected, tried, validated, an action invoked, pinned by the lock file,
/// and a trap that graft survives to report.
@Suite(.timeLimit(.minutes(10)))
struct WasmCLITests {
    @Test("graft list, inspect, try, validate, action and lock work on a .wasm as on a .so")
    func commands() async throws {
        try await offPool { try Self.runCommands() }
    }

    static func runCommands() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.buildWasm("hello", into: scratch.file("plugins")).path
        let only = ["--only-plugin-path", "--plugin-path", plugin]
        let cache = scratch.file("cache")

        let listed = try graft(["list"] + only, cache: cache)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("com.example.wasm-hello 1.0.0 — Hello (wasm)  [WebAssembly ABI 1.0, wasm32: runs on any host, loaded]"), "\(listed.stdout)")
        let json = try #require(try parseJSON(try graft(["list", "--json"] + only, cache: cache).stdout) as? [String: Any])
        let plugins = try #require(json["plugins"] as? [[String: Any]])
        #expect(plugins.first?["format"] as? String == "wasm32")

        let checked = try graft(["check", plugin], cache: cache)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("ok"), "\(checked.stdout)")
        let broken = try Fixtures.buildWasm("hello", into: scratch.file("broken"), defines: ["HELLO_BAD_DESCRIPTION": "1"]).path
        let refused = try graft(["check", broken], cache: cache)
        #expect(refused.status != 0 && refused.stdout.contains("invalid_descriptor"), "\(refused.stdout)\(refused.stderr)")

        // scan-time's 100 ms budget is for a release build; a debug build's interpreter is many times slower.
        let conformance = try graft(["check", "--conformance", "--skip", "scan-time", "--test-timeout", "120", plugin], cache: cache)
        #expect(conformance.status == 0, "\(conformance.stdout)\(conformance.stderr)")
        #expect(conformance.stdout.contains("11 passed, 1 skipped"), "\(conformance.stdout)")

        let inspected = try graft(["inspect", "greeting"] + only, cache: cache)
        #expect(inspected.stdout.contains("runs on: wasm32: runs on any host (WebAssembly ABI 1.0)"), "\(inspected.stdout)")

        let tried = try graft(["try", "greeting"] + only, cache: cache)
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains("--- text/plain ---\nHello, Ada\n"), "\(tried.stdout)")

        let valid = try graft(["validate", "even_length", "\"ab\""] + only, cache: cache)
        #expect(valid.stdout.hasSuffix("valid\n"), "\(valid.stdout)")
        let invalid = try graft(["validate", "even_length", "\"abc\""] + only, cache: cache)
        #expect(invalid.stdout.contains("invalid: has an odd length"), "\(invalid.stdout)")

        let shouted = try graft(["action", "shout", "--param", "text=hi"] + only, cache: cache)
        #expect(shouted.status == 0, "\(shouted.stderr)")
        #expect(shouted.stdout.contains("set shouted = \"HI\""), "\(shouted.stdout)")

        // The lock file pins a .wasm as it pins a .so.
        let lockFile = scratch.file("graft.lock").path
        let locked = try graft(["lock", "--lock-file", lockFile] + only, cache: cache)
        #expect(locked.status == 0 && locked.stdout.contains("hello.wasm  com.example.wasm-hello 1.0.0  sha256:"), "\(locked.stdout)\(locked.stderr)")
        #expect(try graft(["list", "--locked", "--lock-file", lockFile] + only, cache: cache).stdout.contains("com.example.wasm-hello 1.0.0"))
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"), defines: ["HELLO_WORD": "\"Hi\""])
        let changed = try graft(["list", "--locked", "--lock-file", lockFile] + only, cache: cache)
        #expect(changed.stdout.contains("hash_mismatch"), "\(changed.stdout)")

        let trapped = try graft(["try", "greeting", "--config", #"{"name": "trap"}"#] + only, cache: cache)
        #expect(trapped.status != 0)
        #expect(trapped.stderr.contains("plugin_crashed") && trapped.stderr.contains("unreachable, in graft_render"), "\(trapped.stderr)")
    }
}
