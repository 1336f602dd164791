import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// Stories (ABI 1.3): named example configurations beside a component's
/// debugConfig, read from `graft.stories/1`, carried from a scanner child and
/// the registry cache like every other part of a contract, and refused by
/// name when they break graft.h's rules.
@Suite(.timeLimit(.minutes(10)))
struct StoriesTests {
    @Test("the first-party plugins' stories reach the contract, in order, the same in process, from a child and from the cache")
    func firstPartyStories() throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["Checkout", "DatePicker"] {
            try FileManager.default.copyItem(at: BuildProducts.plugin(name), to: folder.appendingPathComponent("lib\(name).so"))
        }
        func stories(isolation: Isolation) throws -> [String: [StorySpec]] {
            let host = GraftHost(
                configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path, isolation: isolation),
                logger: quietLogger)
            host.loadPlugins()
            #expect(host.failures.isEmpty, "\(host.failures)")
            return [
                "paywall": try host.resolve(ComponentReference(key: "paywall")).contract.stories,
                "date_picker@2": try host.resolve(ComponentReference(key: "date_picker", version: 2)).contract.stories,
                "date_picker@1": try host.resolve(ComponentReference(key: "date_picker", version: 1)).contract.stories,
            ]
        }
        let first = try stories(isolation: .perPlugin)  // described by a scanner child
        #expect(first["paywall"]?.map(\.name) == ["sale", "many_features", "free"])
        #expect(first["paywall"]?.first?.config == ["title": "Graft Pro, 50% off", "price": 4.99, "features": ["Unlimited flows"]])
        #expect(first["paywall"]?.first?.description == "A discounted offer with one feature.")
        #expect(first["date_picker@2"]?.map(\.name) == ["delivery", "no_label"], "GraftKit's stories too")
        #expect(first["date_picker@1"] == [])
        #expect(try stories(isolation: .perPlugin) == first, "from the registry cache")
        #expect(try stories(isolation: .inProcess) == first, "loaded in this process")
    }

    @Test("stories that break graft.h's rules are refused, each one named")
    func badStories() throws {
        let scratch = try Scratch()
        let file = try Fixtures.build("bad_stories", into: scratch.url)
        let check = GraftHost.check(pluginAt: file.path, logger: quietLogger)
        #expect(check.problems.allSatisfy { $0.code == .invalidDescriptor })
        let messages = check.problems.map(\.message)
        for expected in [
            "story #0 is for component 'gadget@1', which the plugin does not declare.",
            "story #1 of 'widget@1' has no name, or one that is not a key",
            "'widget@1' declares story 'twice' twice.",
            "'widget@1' story 'colour' config sets 'colour', which is not a declared input.",
            "'widget@1' story 'numbered' config gives 'title' a number but the input is declared string.",
            "'widget@1' story 'listed' config is a JSON list, not an object.",
        ] {
            #expect(messages.contains { $0.contains(expected) }, "\(expected): \(messages)")
        }
        #expect(messages.count == 6, "\(messages)")
    }

    @Test("a child that describes stories graft.h forbids is not believed")
    func storiesFromAChild() {
        var told = PluginDescription(
            id: "test.liar", version: "1.0.0", name: "Liar", path: "/x.so", imagePath: "/x.so", abi: .host, canUnload: true,
            components: [ComponentContract(key: "widget", version: 1, inputs: [FieldSpec(key: "title", type: .string)])],
            validators: [], actions: [])
        #expect(told.ruleProblems.isEmpty)
        told.components[0].stories = [
            StorySpec(name: "Not A Key", config: [:]), StorySpec(name: "twice"), StorySpec(name: "twice"),
            StorySpec(name: "typed", config: ["title": 3]), StorySpec(name: "extra", config: ["colour": "red"]),
            StorySpec(name: "said", description: "a \u{1B}[31mred\u{1B}[0m one"),
        ]
        let problems = told.ruleProblems
        for expected in [
            "component 'widget''s story 'Not A Key' is not a key", "component 'widget' has story 'twice' twice",
            "component 'widget''s story 'typed' sets 'title', not a declared input of its type",
            "component 'widget''s story 'extra' sets 'colour', not a declared input of its type",
            "component 'widget''s story 'said''s description holds control characters",
        ] {
            #expect(problems.contains { $0.contains(expected) }, "\(expected): \(problems)")
        }
    }
}
