import Foundation
import Glibc
import GraftTestSupport
import GraftWebDriver
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `graft test` as a CI job runs it: every story of the first-party plugins and the C example (their story files
/// included) passes, isolated and sandboxed as every command runs; a doctored snapshot, a failed expectation and a
/// story file that does not read each fail it, named; the JUnit report says the same.
@Suite(.timeLimit(.minutes(10)))
struct StoryTestCLITests {
    /// The first-party plugins and the C example in one folder, and the story folders the repository keeps for them.
    static func plugins(in scratch: borrowing Scratch) throws -> (folder: URL, storyArguments: [String]) {
        let folder = scratch.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for plugin in ["Checkout", "DatePicker"] {
            try FileManager.default.copyItem(at: try BuildProducts.plugin(plugin), to: folder.appendingPathComponent("lib\(plugin).so"))
        }
        _ = try CLITests.buildExamplePlugin(into: folder)
        let stories = ["Plugins/Checkout/stories", "Plugins/DatePicker/stories", "Examples/c-plugin/stories"]
            .flatMap { ["--stories", Fixtures.root.appendingPathComponent($0).path] }
        return (folder, stories)
    }

    /// The JUnit report read back as a CI system reads it: each test case by name, with its failure's type, if any.
    final class JUnitCases: NSObject, XMLParserDelegate {
        var cases: [String: String?] = [:]
        var current: String?
        var errors: [String] = []

        static func read(_ file: URL) throws -> JUnitCases {
            let reader = JUnitCases()
            let parser = try #require(XMLParser(contentsOf: file))
            parser.delegate = reader
            #expect(parser.parse(), "the JUnit report is XML: \(String(describing: parser.parserError))")
            return reader
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch name {
            case "testcase":
                current = "\(attributes["classname"] ?? "")/\(attributes["name"] ?? "")"
                cases[current!] = .some(nil)
            case "failure": if let current { cases[current] = attributes["type"] }
            case "error": errors.append(attributes["type"] ?? "")
            default: break
            }
        }
    }

    @Test("graft test over the first-party plugins and the C example passes, writes snapshots, then matches them; the JUnit report lists every story")
    func passes() throws {
        let scratch = try Scratch()
        let (folder, stories) = try Self.plugins(in: scratch)
        let snapshots = scratch.file("snapshots").path, junit = scratch.file("report.xml")
        let arguments = ["test", "--only-plugin-path", "--plugin-path", folder.path, "--snapshots", snapshots] + stories
        let first = try graft(arguments + ["--junit", junit.path], cache: scratch.file("cache"))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("✔ dev.graft.checkout paywall@1 › buy"), "\(first.stdout)")
        #expect(first.stdout.contains("✔ com.example.rating star_rating@1 › four_stars"), "\(first.stdout)")
        #expect(first.stdout.contains("16 stories: 16 passed, 0 failed (snapshots: 16 written, 0 updated)"), "\(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: snapshots + "/dev.graft.checkout/paywall@1/not_now.html"))
        #expect(FileManager.default.fileExists(atPath: snapshots + "/dev.graft.date-picker/date_picker@2/plain_text.txt"))
        let report = try JUnitCases.read(junit)
        #expect(report.cases.count == 16)
        #expect(report.cases["dev.graft.checkout/paywall@1/buy"] == .some(nil), "\(report.cases)")
        #expect(report.cases.values.allSatisfy { $0 == nil })

        let second = try graft(arguments + ["--ci"], cache: scratch.file("cache"))
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.hasSuffix("16 stories: 16 passed, 0 failed\n"), "\(second.stdout)")
        // --json: one object, every story with its steps and its snapshot.
        let json = try graft(arguments + ["--json", "com.example.rating"], cache: scratch.file("cache"))
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try parseJSON(json.stdout) as? [String: Any])
        #expect(object["passed"] as? Int == 3 && object["failed"] as? Int == 0, "\(object)")
        let fourStars = try #require((object["stories"] as? [[String: Any]])?.first { $0["story"] as? String == "four_stars" })
        #expect((fourStars["steps"] as? [[String: Any]])?.map { $0["passed"] as? Bool } == [true, true, true, true])
        #expect((fourStars["snapshot"] as? [String: Any])?["state"] as? String == "matched")
        // Only the plugins named.
        let one = try graft(arguments + ["com.example.rating"], cache: scratch.file("cache"))
        #expect(one.status == 0)
        #expect(one.stdout.contains("3 stories: 3 passed"), "\(one.stdout)")
        let unknown = try graft(arguments + ["com.example.ratings"], cache: scratch.file("cache"))
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("plugin_not_found: no plugin on the search path has the id 'com.example.ratings'"), "\(unknown.stderr)")
    }

    @Test("a doctored snapshot, a failed expectation and a story file that does not read each fail graft test, named, and the others still pass; --update mends the snapshot; --ci fails without one")
    func fails() throws {
        let scratch = try Scratch()
        let (folder, stories) = try Self.plugins(in: scratch)
        let snapshots = scratch.file("snapshots").path, junit = scratch.file("report.xml"), cache = scratch.file("cache")
        let arguments = ["test", "--only-plugin-path", "--plugin-path", folder.path, "--snapshots", snapshots] + stories
        #expect(try graft(arguments, cache: cache).status == 0)

        // A snapshot that is not what the paywall renders.
        let doctored = snapshots + "/dev.graft.checkout/paywall@1/sale.html"
        let kept = try String(contentsOfFile: doctored, encoding: .utf8)
        try kept.replacingOccurrences(of: "4.99", with: "3.99").write(toFile: doctored, atomically: true, encoding: .utf8)
        // A story whose expectation does not hold, and a file that is not a story file.
        let extra = scratch.url.appendingPathComponent("more-stories")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try #"""
            {"schema": "graft.story-file/1", "component": "date_picker@2", "stories": [
              {"name": "wrong_day", "play": [
                {"interact": "select", "data": {"date": "2026-12-24"}},
                {"expectEvent": "date_selected", "payload": {"date": "2026-12-25"}},
                {"interact": "wave"}]}]}
            """#.write(to: extra.appendingPathComponent("wrong.stories.json"), atomically: true, encoding: .utf8)
        try #"{"schema": "graft.story-file/1", "component": "date_picker@2", "stories": [{"name": "x", "play": [{"tap": "now"}]}]}"#
            .write(to: extra.appendingPathComponent("broken.stories.json"), atomically: true, encoding: .utf8)

        let failed = try graft(arguments + ["--stories", extra.path, "--junit", junit.path], cache: cache)
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stdout.contains("✘ dev.graft.checkout paywall@1 › sale"), "\(failed.stdout)")
        #expect(failed.stdout.contains("snapshot_mismatch: the render is not its snapshot \(doctored): line 3 was"), "\(failed.stdout)")
        #expect(failed.stdout.contains("""
            ✘ dev.graft.date-picker date_picker@2 › wrong_day  (\(extra.path)/wrong.stories.json)
                step 2, expect event date_selected {"date":"2026-12-25"}: no date_selected event with a payload holding {"date":"2026-12-25"}; events so far: date_selected {"date":"2026-12-24",
            """), "\(failed.stdout)")
        #expect(failed.stdout.contains("step 3, interact wave: unknown_interaction: date_picker@2 does not take the interaction 'wave'; it declares select."), "\(failed.stdout)")
        #expect(failed.stderr.contains("error: invalid_story: the story file \(extra.path)/broken.stories.json: stories[0].play[0] names no step"), "\(failed.stderr)")
        #expect(failed.stdout.hasSuffix("17 stories: 15 passed, 2 failed; 1 story file not used\n"), "\(failed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: snapshots + "/dev.graft.date-picker/date_picker@2/wrong_day.html"), "a failed story gets no snapshot")
        let report = try JUnitCases.read(junit)
        #expect(report.cases["dev.graft.checkout/paywall@1/sale"] == .some("snapshot_mismatch"))
        #expect(report.cases["dev.graft.date-picker/date_picker@2/wrong_day"] == .some("story_failed"))
        #expect(report.cases["dev.graft.checkout/paywall@1/buy"] == .some(nil))
        #expect(report.errors == ["invalid_story"])

        // --update writes what renders; the next run passes.
        let updated = try graft(arguments + ["--update"], cache: cache)
        #expect(updated.status == 0, "\(updated.stdout)")
        #expect(updated.stdout.contains("(snapshots: 0 written, 1 updated)"), "\(updated.stdout)")
        #expect(try String(contentsOfFile: doctored, encoding: .utf8) == kept)
        // --ci: a story without a snapshot fails rather than writing one nobody keeps.
        try FileManager.default.removeItem(atPath: doctored)
        let strict = try graft(arguments + ["--ci"], cache: cache)
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("snapshot_mismatch: the render is not its snapshot \(doctored): there is no snapshot yet"), "\(strict.stdout)")
        #expect(!FileManager.default.fileExists(atPath: doctored))
    }
}

/// `graft test --a11y`: each HTML render checked with axe-core in headless Chromium, as the workbench's tests check
/// its pages. The first-party plugins' renders pass; a component whose HTML has an image without a text alternative
/// and a nameless button fails, naming both rules.
@Suite(.timeLimit(.minutes(10)), .enabled(if: Browser.shouldRun, "needs chromium and chromedriver"))
struct StoryAccessibilityCLITests {
    @Test("graft test --a11y passes the first-party renders and fails an inaccessible one, naming the rules; the JUnit report says inaccessible_render")
    func accessibility() throws {
        let scratch = try Scratch()
        let (folder, stories) = try StoryTestCLITests.plugins(in: scratch)
        let arguments = ["test", "--only-plugin-path", "--plugin-path", folder.path, "--snapshots", scratch.file("snapshots").path, "--a11y"]
        let passed = try graft(arguments + stories, cache: scratch.file("cache"))
        #expect(passed.status == 0, "\(passed.stdout)\(passed.stderr)")
        #expect(passed.stdout.contains("16 stories: 16 passed, 0 failed"), "\(passed.stdout)")

        let inaccessible = scratch.url.appendingPathComponent("inaccessible")
        try Fixtures.build("good_widget", into: inaccessible, defines: ["WIDGET_INACCESSIBLE": "1"])
        let junit = scratch.file("report.xml")
        let failed = try graft(
            ["test", "--only-plugin-path", "--plugin-path", inaccessible.path, "--snapshots", scratch.file("snapshots-2").path, "--a11y", "--junit", junit.path],
            cache: scratch.file("cache"))
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stdout.contains("✘ test.widget widget@1 › debugConfig"), "\(failed.stdout)")
        #expect(failed.stdout.contains("inaccessible_render: critical image-alt: Images must have alternative text"), "\(failed.stdout)")
        #expect(failed.stdout.contains("inaccessible_render: critical button-name: Buttons must have discernible text"), "\(failed.stdout)")
        #expect(try StoryTestCLITests.JUnitCases.read(junit).cases["test.widget/widget@1/debugConfig"] == .some("inaccessible_render"))
        // Without axe, --a11y refuses to run rather than passing unchecked.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = scratch.file("cache").path
        environment["GRAFT_AXE"] = "/nonexistent/axe.min.js"
        let refused = try runCommand(BuildProducts.graft(), arguments, environment: environment, timeout: .seconds(60))
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("accessibility_unavailable: --a11y needs axe-core: cannot read axe.min.js (GRAFT_AXE) /nonexistent/axe.min.js"), "\(refused.stderr)")
    }

    @Test("graft test --a11y: a render that tries to navigate away (a meta refresh to a listener on this machine) reaches nobody, and the check still runs")
    func renderCannotNavigate() throws {
        let scratch = try Scratch()
        let listener = try LeakListener()
        defer { listener.close() }
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build(
            "good_widget", into: folder,
            defines: ["WIDGET_PREFIX": "\"<meta http-equiv='refresh' content='0;url=http://127.0.0.1:\(listener.port)/leak'>\""])
        let checked = try graft(
            ["test", "--only-plugin-path", "--plugin-path", folder.path, "--snapshots", scratch.file("snapshots").path, "--a11y"],
            cache: scratch.file("cache"))
        #expect(checked.stdout.contains("test.widget widget@1 › debugConfig"), "\(checked.stdout)\(checked.stderr)")
        #expect(!checked.stdout.contains("navigated away") && !checked.stdout.contains("did not finish"), "\(checked.stdout)")
        // The render did carry the refresh; it would have fired at once (a second more for a late one).
        let snapshot = try String(contentsOfFile: scratch.file("snapshots").path + "/test.widget/widget@1/debugConfig.html", encoding: .utf8)
        #expect(snapshot.contains("<meta http-equiv='refresh' content='0;url=http://127.0.0.1:\(listener.port)/leak'>"), "\(snapshot)")
        #expect(!listener.wasReached(within: .seconds(1)), "the render's refresh reached the network")
        // And the listener does notice a visitor.
        let visitor = try HTTPProbe.connect(port: listener.port, timeout: .seconds(2))
        defer { Glibc.close(visitor) }
        #expect(listener.wasReached(within: .seconds(2)))
    }
}

/// A TCP listener on 127.0.0.1 that only notes whether anyone connected.
final class LeakListener: @unchecked Sendable {
    let socket: Int32
    let port: Int

    init() throws {
        let listening = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard listening >= 0, bound == 0, listen(listening, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) } }
        socket = listening
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a connection is waiting, or arrives before `within` is over.
    func wasReached(within: Duration) -> Bool {
        let deadline = ContinuousClock.now + within
        repeat {
            let client = accept(socket, nil, nil)
            if client >= 0 { Glibc.close(client); return true }
            usleep(20_000)
        } while ContinuousClock.now < deadline
        return false
    }

    func close() { Glibc.close(socket) }
}

