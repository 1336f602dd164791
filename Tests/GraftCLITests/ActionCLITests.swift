import Foundation
import GraftTestSupport
import Testing

/// `graft action`, as `graft validate` is for validators: the first-party
/// actions with params and a payload, a failing one, a crashing one (isolated:
/// graft survives it), text and --json, exit codes 0, 1 and 2.
@Suite(.timeLimit(.minutes(10)))
struct ActionCLITests {
    @Test("the first-party actions answer with their variables; a failure exits 1 with its reason")
    func firstParty() async throws {
        try await offPool { try Self.runFirstParty() }
    }

    static func runFirstParty() throws {
        let shifted = try graft("action", "add_days", "--param", "days=2", "--param", "variable=due", "--payload", #"{"date": "2026-12-30"}"#)
        #expect(shifted.status == 0, "\(shifted.stderr)")
        #expect(shifted.stdout.hasPrefix("add_days@1 from dev.graft.date-picker ("), "\(shifted.stdout)")
        #expect(shifted.stdout.contains("ok\n  set due = \"2027-01-01\""), "\(shifted.stdout)")

        let formatted = try graft("action", "dev.graft.checkout/format_currency", "--params", #"{"amount": 1234.5, "currency": "EUR", "variable": "price"}"#, "--json")
        #expect(formatted.status == 0, "\(formatted.stderr)")
        let json = try #require(try parseJSON(formatted.stdout) as? [String: Any])
        #expect(json["plugin"] as? String == "dev.graft.checkout")
        #expect(json["ok"] as? Bool == true)
        #expect((json["variables"] as? [String: Any])?["price"] != nil, "\(formatted.stdout)")

        let failed = try graft("action", "add_days", "--param", "variable=due", "--payload", #"{"date": "2026-12-30"}"#)
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("failed: add_days needs \"days\""), "\(failed.stdout)")

        let unknown = try graft("action", "add_dayz")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: action_not_found:") && unknown.stderr.contains("add_days"), "\(unknown.stderr)")
        let badParams = try graft("action", "add_days", "--params", "[1]")
        #expect(badParams.status == 2)
        #expect(badParams.stderr.contains("invalid_json"), "\(badParams.stderr)")
        let badPair = try graft("action", "add_days", "--param", "days")
        #expect(badPair.status == 2)
    }

    @Test("an action that crashes its process fails with plugin_crashed, and graft lives to say so")
    func crashing() async throws {
        try await offPool { try Self.runCrashing() }
    }

    static func runCrashing() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("bad_runtime", into: scratch.url, defines: ["FAULT_IN": "\"action\"", "FAULT": "\"segv\""])
        let crashed = try graft("action", "fragile_action", "--only-plugin-path", "--plugin-path", plugin.path)
        #expect(crashed.status == 2, "\(crashed.stdout)")
        #expect(crashed.stderr.contains("plugin_crashed"), "\(crashed.stderr)")
        let fine = try graft("action", "fragile_action", "--json", "--only-plugin-path", "--plugin-path", try Fixtures.build("bad_runtime", into: scratch.url.appendingPathComponent("fine")).path)
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect((try parseJSON(fine.stdout) as? [String: Any])?["variables"] as? [String: Bool] == ["done": true], "\(fine.stdout)")
    }
}
