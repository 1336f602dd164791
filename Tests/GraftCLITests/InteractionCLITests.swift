import Foundation
import GraftTestSupport
import Testing

/// Declared interactions (ABI 1.1) as a tester sees them: `graft inspect` and
/// `graft list` show them, also when answered from the registry cache, and
/// `graft try --interact` suggests them for a mistyped name.
@Suite(.timeLimit(.minutes(10)))
struct InteractionCLITests {
    @Test("inspect and list show the interactions, list --json twice (the second from the cache); try suggests a declared one")
    func shown() throws {
        let scratch = try Scratch()
        let library = try Fixtures.build("good_widget", into: scratch.url.appendingPathComponent("plugins")).path
        let cache = scratch.file("cache")
        let inspected = try graft(["inspect", "widget", "--plugin-path", library], cache: cache)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdout.contains("interactions:\n    tap  — tap the widget: emits `tapped`"), "\(inspected.stdout)")
        for _ in 0..<2 {
            let listed = try graft(["list", "--json", "--only-plugin-path", "--plugin-path", library], cache: cache)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains(#""interactions":[{"data":{},"description":"tap the widget: emits `tapped`","name":"tap"}]"#), "\(listed.stdout)")
        }
        let mistyped = try graft(["try", "widget", "--plugin-path", library, "--interact", "tpa"], cache: cache)
        #expect(mistyped.status != 0)
        #expect(mistyped.stderr.contains("unknown_interaction"), "\(mistyped.stderr)")
        #expect(mistyped.stderr.contains("it declares tap. Did you mean 'tap'?"), "\(mistyped.stderr)")
        let tapped = try graft(["try", "widget", "--plugin-path", library, "--interact", "tap"], cache: cache)
        #expect(tapped.status == 0, "\(tapped.stderr)")
        #expect(tapped.stdout.contains("emit tapped"))
    }

    @Test("try --interact on a declared interaction the component refuses is interaction_refused, exit 1")
    func refused() throws {
        let scratch = try Scratch()
        let library = try Fixtures.build(
            "good_widget", into: scratch.url.appendingPathComponent("plugins"), defines: ["WIDGET_REFUSES_TAP": "1"]).path
        let refused = try graft(["try", "widget", "--plugin-path", library, "--interact", "tap"], cache: scratch.file("cache"))
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("interaction_refused: widget@1 refused the interaction 'tap' with that data"), "\(refused.stderr)")
    }
}
