import Foundation
import GraftTestSupport
import Testing

/// Stories (ABI 1.3) as a tester meets them: `graft inspect` lists them,
/// `graft list --json` carries them (also from the registry cache), and
/// `graft try --story NAME` renders one, isolated, or names the ones there are.
@Suite(.timeLimit(.minutes(10)))
struct StoryCLITests {
    @Test("inspect lists the paywall's stories; list --json twice carries them; try --story renders one and refuses an unknown one")
    func stories() throws {
        let scratch = try Scratch()
        let library = try BuildProducts.plugin("Checkout").path
        let cache = scratch.file("cache")
        let inspected = try graft(["inspect", "paywall", "--only-plugin-path", "--plugin-path", library], cache: cache)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdout.contains("""
              stories (graft try --story NAME):
                sale: {"features":["Unlimited flows"],"price":4.99,"title":"Graft Pro, 50% off"}  — A discounted offer with one feature.
            """), "\(inspected.stdout)")
        for _ in 0..<2 {
            let listed = try graft(["list", "--json", "--only-plugin-path", "--plugin-path", library], cache: cache)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains(#""stories":[{"config":{"features":["Unlimited flows"],"price":4.99,"title":"Graft Pro, 50% off"},"description":"A discounted offer with one feature.","name":"sale"}"#), "\(listed.stdout)")
        }
        let tried = try graft(["try", "paywall", "--story", "free", "--only-plugin-path", "--plugin-path", library], cache: cache)
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains(#"inputs: {"features":[],"price":0,"title":"Graft Free"}"#), "\(tried.stdout)")
        #expect(tried.stdout.contains("Graft Free"))
        let unknown = try graft(["try", "paywall", "--story", "black_friday", "--only-plugin-path", "--plugin-path", library], cache: cache)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("invalid_config: paywall@1 has no story 'black_friday'; its stories: sale, many_features, free."), "\(unknown.stderr)")
        let both = try graft(["try", "paywall", "--story", "sale", "--config", "{}", "--only-plugin-path", "--plugin-path", library], cache: cache)
        #expect(both.status == 2)
        #expect(both.stderr.contains("--story gives the inputs"), "\(both.stderr)")
    }
}
