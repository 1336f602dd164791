import Foundation
import GraftTestSupport
import Testing

/// `graft check --conformance` from the command line: its exit codes (0 all
/// pass, 1 a test fails, 2 usage), --only, --skip, --strict, --json and
/// --list-tests.
@Suite("graft check --conformance")
struct ConformanceCLITests {
    static let testNames = [
        "entry-and-abi", "descriptor-consistency", "create-from-debug-config", "render-text-and-html", "interactions",
        "create-destroy-1000", "hostile-inputs", "validator-edge-values", "action-missing-params", "concurrent-calls",
        "init-deinit-init", "scan-time", "exported-symbols",
    ]

    @Test("a conforming plugin: exit 0, one line per test")
    func passes() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url)
        let result = try graft("check", "--conformance", plugin.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for name in Self.testNames { #expect(result.stdout.contains("PASS  \(name)\n"), "\(name)") }
        #expect(result.stdout.contains("13 passed"))
    }

    @Test("a failing test: exit 1, the finding names the test, the key, what was expected and what happened")
    func fails() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["BREAK_RENDER_MEDIA_TYPE": "1"])
        let result = try graft("check", "--conformance", plugin.path)
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  render-text-and-html\n        card@1: expected a media type of the form type/subtype (asked for text/html); got \"html\""), "\(result.stdout)")
    }

    @Test("--json: every test with its outcome and findings")
    func json() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["BREAK_ACTION_PARAMS": "1"])
        let result = try graft("check", "--conformance", "--json", plugin.path)
        #expect(result.status == 1)
        let report = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        let tests = try #require(report["tests"] as? [[String: Any]])
        #expect(tests.compactMap { $0["name"] as? String } == Self.testNames)
        let action = try #require(tests.first { $0["name"] as? String == "action-missing-params" })
        #expect(action["outcome"] as? String == "failed")
        let finding = try #require((action["findings"] as? [[String: Any]])?.first)
        #expect(finding["key"] as? String == "action remember@1")
        #expect(finding["code"] as? String == "plugin_crashed")
        #expect((finding["actual"] as? String)?.contains("SIGSEGV") == true)
        #expect(tests.filter { $0["outcome"] as? String == "failed" }.count == 1)
    }

    @Test("--only and --skip choose the tests that run")
    func onlyAndSkip() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["BREAK_LEAK": "1"])
        let only = try graft("check", "--conformance", "--json", "--only", "scan-time", "--only", "entry-and-abi", plugin.path)
        #expect(only.status == 0, "the leak is in a test that did not run")
        let onlyTests = try #require((try parseJSON(only.stdout) as? [String: Any])?["tests"] as? [[String: Any]])
        #expect(onlyTests.compactMap { $0["name"] as? String } == ["entry-and-abi", "scan-time"])
        let skip = try graft("check", "--conformance", "--skip", "create-destroy-1000", plugin.path)
        #expect(skip.status == 0, "\(skip.stdout)")
        #expect(!skip.stdout.contains("create-destroy-1000"))
        #expect(try graft("check", "--conformance", "--only", "create-destroy-1000", plugin.path).status == 1)
    }

    @Test("--strict turns warnings into failures")
    func strict() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["BREAK_EXPORTS": "1"])
        let basic = try graft("check", "--conformance", "--only", "exported-symbols", plugin.path)
        #expect(basic.status == 0)
        #expect(basic.stdout.contains("WARN  exported-symbols"))
        let strict = try graft("check", "--conformance", "--strict", "--only", "exported-symbols", plugin.path)
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("FAIL  exported-symbols\n        warning: image: expected no exported symbol but graft_entry"))
    }

    @Test("usage errors exit 2: an unknown test (with the closest name), conformance options without --conformance, no file")
    func usageErrors() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url)
        let unknown = try graft("check", "--conformance", "--skip", "rendr", plugin.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: unknown_test: no conformance test is named 'rendr'. Did you mean 'render-text-and-html'?"))
        let unknownJSON = try graft("check", "--conformance", "--json", "--only", "nope", plugin.path)
        #expect(unknownJSON.status == 2)
        #expect(((try parseJSON(unknownJSON.stdout) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "unknown_test")
        #expect(try graft("check", "--strict", plugin.path).status == 2)
        #expect(try graft("check", "--conformance", "--flow", "x.json").status == 2)
        #expect(try graft("check", "--conformance").status == 2)
        #expect(try graft("check", "--conformance", scratch.file("libmissing.so").path).status == 2)
    }

    @Test("--list-tests names and describes every test")
    func listTests() throws {
        let result = try graft("check", "--list-tests")
        #expect(result.status == 0)
        for name in Self.testNames { #expect(result.stdout.contains("\(name)\n    "), "\(name)") }
        let json = try graft("check", "--list-tests", "--json")
        let tests = try #require((try parseJSON(json.stdout) as? [String: Any])?["tests"] as? [[String: Any]])
        #expect(tests.compactMap { $0["name"] as? String } == Self.testNames)
        #expect(tests.allSatisfy { ($0["summary"] as? String)?.isEmpty == false })
    }
}
