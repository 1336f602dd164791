import Foundation
import GraftHost
import GraftStories
import GraftTestSupport
import Testing

/// Story files as a tester writes them: what they say is read back exactly, and each mistake is refused with
/// `invalid_story`, naming the file and where in it.
@Suite("Story files")
struct StoryFileTests {
    static let good = """
        {
          "schema": "graft.story-file/1",
          "component": "paywall@1",
          "stories": [
            { "name": "sale", "description": "half price", "inputs": { "title": "Pro", "price": 4.99 },
              "size": { "width": 360, "height": 640 },
              "play": [
                { "set": { "title": "Pro+" } },
                { "interact": "dismiss", "data": { "reason": "later" } },
                { "emit": "purchase", "payload": { "title": "Pro+", "price": 4.99 } },
                { "expectEvent": "dismiss", "payload": { "reason": "later" } },
                { "expectText": "Pro+" },
                { "expectHTML": "<h1>" },
                { "expectNoWarning": true },
                { "expectNoWarning": "input_missing" }
              ] },
            { "name": "plain", "mediaType": "text/plain" }
          ]
        }
        """

    @Test("a story file reads back as it was written, and writes the same again")
    func roundTrip() throws {
        let file = try StoryFile(parsing: Self.good, path: "stories/paywall.stories.json")
        #expect(file.component == ComponentReference(key: "paywall", version: 1))
        #expect(file.stories.map(\.name) == ["sale", "plain"])
        let sale = file.stories[0]
        #expect(sale.inputs == ["title": "Pro", "price": 4.99])
        #expect(sale.size == ContainerSize(width: 360, height: 640))
        #expect(sale.mediaType == .html && file.stories[1].mediaType == .plain)
        #expect(sale.play == [
            .set(["title": "Pro+"]), .interact(action: "dismiss", data: ["reason": "later"]),
            .emit(event: "purchase", payload: ["title": "Pro+", "price": 4.99]), .expectEvent(event: "dismiss", payload: ["reason": "later"]),
            .expectText("Pro+"), .expectHTML("<h1>"), .expectNoWarning(code: nil), .expectNoWarning(code: "input_missing"),
        ])
        #expect(file.stories[1].inputs == nil, "no inputs: the debugConfig")
        let again = try StoryFile(parsing: file.text, path: file.path)
        #expect(again == file)
        #expect(again.text == file.text)
    }

    @Test("each mistake is refused with invalid_story, naming the file and the place", arguments: [
        (#"{"schema": "graft.story-file/2", "component": "a@1", "stories": []}"#, #""schema" is "graft.story-file/2""#),
        (#"{"schema": "graft.story-file/1", "component": "a@x", "stories": []}"#, #""component" needs the component"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": {}}"#, #""stories" is not a list"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [], "extra": 1}"#, #""extra" is not a member"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "../x"}]}"#, "stories[0].name needs a name"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a"}, {"name": "a"}]}"#, #"stories[1].name "a" is the name of an earlier story"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "inputs": []}]}"#, "stories[0].inputs is not an object"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "size": {"width": -1}}]}"#, "stories[0].size needs"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "mediaType": "image/png"}]}"#, "stories[0].mediaType is"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"tap": 1}]}]}"#, "stories[0].play[0] names no step"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"interact": "x", "emit": "y"}]}]}"#, "names emit and interact: one step per object"),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"interact": "x", "payload": {}}]}]}"#, #"has "payload", which a "interact" step does not take"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"expectText": ""}]}]}"#, #""expectText" needs a non-empty string"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"expectNoWarning": false}]}]}"#, #""expectNoWarning" needs true"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "stories": [{"name": "a", "play": [{"set": 3}]}]}"#, #""set" needs an object"#),
        (#"{"schema": "graft.story-file/1", "component": "a@1", "#, "is not valid JSON"),
    ])
    func refusals(text: String, said: String) {
        #expect {
            _ = try StoryFile(parsing: text, path: "stories/x.stories.json")
        } throws: { error in
            guard let error = error as? GraftError else { return false }
            return error.code == .invalidStory && error.path == "stories/x.stories.json"
                && error.message.hasPrefix("the story file stories/x.stories.json") && error.message.contains(said)
        }
    }

    @Test("the example in docs/Stories.md is a story file, and every verb its table lists is one a step takes")
    func documentedExample() throws {
        let article = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/Stories.md"), encoding: .utf8)
        let example = try #require(article.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let file = try StoryFile(parsing: example, path: "docs/Stories.md")
        #expect(file.stories.map(\.name) == ["buy", "in_a_terminal"])
        for verb in ["set", "interact", "emit", "expectEvent", "expectText", "expectHTML", "expectNoWarning"] {
            #expect(article.contains("| `{\"\(verb)\": "), "the step table lists \(verb)")
        }
    }

    @Test("a missing file, a folder and a file too large say so by name")
    func unreadable() throws {
        for path in ["/nonexistent/a.stories.json", "/tmp", "/dev/zero"] {
            #expect {
                _ = try StoryFile.read(path)
            } throws: { error in
                (error as? GraftError)?.code == .invalidStory && (error as? GraftError)?.message.contains(path) == true
            }
        }
    }

    @Test("the text a person reads of an HTML render: no tags, entities read, spaces made one")
    func visibleText() {
        let html = Rendering(text: "<h1>Pro &amp; more</h1>\n<p>4.99&nbsp;&lt;USD&gt;</p>", mediaType: .html)
        #expect(StoryStepper.visibleText(html) == "Pro & more 4.99 <USD>")
        // Inline tags join their text; scripts and styles are not read; a > inside a quoted attribute is not the tag's end.
        let mixed = Rendering(
            text: "<style>p{color:red}</style><p title=\"a > b\"><b>50</b>% off<br>now&#8217;s &#x2014; it</p><script>var x = '<p>';</script>",
            mediaType: .html)
        #expect(StoryStepper.visibleText(mixed) == "50% off now\u{2019}s \u{2014} it")
        #expect(StoryStepper.visibleText(Rendering(text: "a <b>", mediaType: .plain)) == "a <b>")
    }
}
