import Foundation
import GraftConformance
import GraftHost
import GraftTestSupport
import Logging
import Testing

let quietLogger = Logger(label: "graft.conformance.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// `graft check --conformance` as a plugin author meets it: the fixture
/// `conformance.c` passes every test as it is, and each -DBREAK_* define
/// breaks exactly one test, whose finding names what it exercised.
@Suite("Conformance tests")
struct ConformanceTests {
    /// One broken build of the fixture: its define, the one test it must
    /// fail, and the key that test's finding must name.
    struct Break: Sendable, CustomTestStringConvertible {
        var define: String
        var test: ConformanceTest
        var key: String
        /// Only a warning otherwise: the test fails with --strict.
        var strict = false
        var testDescription: String { "\(define) fails \(test.name)" }
    }

    static let breaks: [Break] = [
        Break(define: "BREAK_ENTRY_ID", test: .entryAndABI, key: "entry"),
        Break(define: "BREAK_DEBUG_CONFIG", test: .descriptorConsistency, key: "card"),
        Break(define: "BREAK_CREATE_ANY_KEY", test: .createFromDebugConfig, key: "card@1"),
        Break(define: "BREAK_RENDER_MEDIA_TYPE", test: .renderTextAndHTML, key: "card@1"),
        Break(define: "BREAK_INTERACT_ANY", test: .interactions, key: "card@1"),
        Break(define: "BREAK_INTERACTION_PAYLOAD", test: .interactions, key: "card@1"),
        Break(define: "BREAK_LEAK", test: .createDestroy1000, key: "card@1"),
        Break(define: "BREAK_HOSTILE", test: .hostileInputs, key: "card@1"),
        Break(define: "BREAK_VALIDATOR_UTF8", test: .validatorEdgeValues, key: "validator not_blank@1"),
        Break(define: "BREAK_ACTION_PARAMS", test: .actionMissingParams, key: "action remember@1"),
        Break(define: "BREAK_THREADS", test: .concurrentCalls, key: "card@1"),
        Break(define: "BREAK_REINIT", test: .initDeinitInit, key: "init"),
        Break(define: "BREAK_SCAN_TIME", test: .scanTime, key: "plugin"),
        Break(define: "BREAK_EXPORTS", test: .exportedSymbols, key: "image", strict: true),
    ]

    static func check(_ path: URL, tests: [ConformanceTest] = ConformanceTest.allCases, strict: Bool = false, timeout: Duration? = nil) throws -> ConformanceReport {
        try ConformanceSupervisor(tests: tests, strict: strict, testTimeout: timeout, logger: quietLogger).check(pluginAt: path.path)
    }

    @Test("an act the sandbox refuses during a test is a warning naming it; a permission the plugin declares is granted for the run")
    func sandboxRefusals() throws {
        let scratch = try Scratch()
        let tests: [ConformanceTest] = [.entryAndABI, .renderTextAndHTML]
        let reading = try Fixtures.build(
            "hostile", into: scratch.url.appendingPathComponent("reading"), defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"read\"", "HOSTILE_CONSTRUCTOR_TARGET": "\"/etc/shadow\""])
        let report = try Self.check(reading, tests: tests)
        for result in report.results {
            #expect(result.outcome(strict: false) == .warned && result.outcome(strict: true) == .failed, "\(result.test.name)")
            #expect(result.findings.contains { $0.key == "sandbox" && $0.code == .sandboxDenied && $0.actual == "refused: read /etc/shadow (openat)" }, "\(result.findings)")
        }
        // The same act on a declared, granted folder: no finding.
        let granted = try Fixtures.build(
            "hostile", into: scratch.url.appendingPathComponent("granted"),
            defines: ["HOSTILE_CONSTRUCTOR_ACT": "\"read\"", "HOSTILE_CONSTRUCTOR_TARGET": "\"/etc/hostname\"", "HOSTILE_PORT": "4444", "HOSTILE_READ": "\"/etc\""])
        let clean = try Self.check(granted, tests: tests, strict: true)
        #expect(clean.results.allSatisfy { $0.findings.isEmpty }, "\(clean.results.flatMap(\.findings))")
    }

    @Test("the fixture as it is passes every test, its declared interaction included")
    func goodPluginPasses() throws {
        let scratch = try Scratch()
        let report = try Self.check(try Fixtures.build("conformance", into: scratch.url), strict: true)
        #expect(report.results.map(\.test) == ConformanceTest.allCases)
        for result in report.results {
            #expect(result.findings.isEmpty, "\(result.test.name): \(result.findings.map(\.sentence))")
            #expect(result.outcome(strict: true) == .passed, "\(result.test.name)")
        }
        #expect(report.passed)
    }

    @Test("each broken build fails exactly its test, naming the key", arguments: breaks)
    func eachBreakFailsItsTest(_ broken: Break) throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: [broken.define: "1"])
        let report = try Self.check(plugin, strict: broken.strict)
        let failed = report.results.filter { $0.outcome(strict: broken.strict) == .failed }
        #expect(failed.map(\.test) == [broken.test], "\(failed.map { "\($0.test.name): \($0.findings.map(\.sentence))" })")
        let findings = try #require(failed.first?.findings)
        #expect(!findings.isEmpty)
        #expect(findings.allSatisfy { $0.key == broken.key }, "\(findings.map(\.sentence))")
        #expect(findings.allSatisfy { !$0.expected.isEmpty && !$0.actual.isEmpty })
        #expect(!report.passed)
    }

    @Test("a plugin that crashes in one test fails that test only; the others still run, each in a new process")
    func crashFailsOneTest() throws {
        let scratch = try Scratch()
        let report = try Self.check(try Fixtures.build("conformance", into: scratch.url, defines: ["CRASH_HTML": "1"]))
        #expect(report.results.count == ConformanceTest.allCases.count)
        let render = try #require(report.results.first { $0.test == .renderTextAndHTML })
        #expect(render.outcome(strict: false) == .failed)
        let finding = try #require(render.findings.first)
        #expect(finding.code == .pluginCrashed)
        #expect(finding.key == "card@1")
        #expect(finding.actual.contains("SIGSEGV") && finding.actual.contains("rendering it as text/html"), "\(finding.actual)")
        for result in report.results where result.test != .renderTextAndHTML {
            #expect([.passed, .skipped].contains(result.outcome(strict: false)), "\(result.test.name): \(result.findings.map(\.sentence))")
        }
    }

    @Test("a test that hangs is killed at its deadline and fails with plugin_timeout, naming the step")
    func hangIsKilledAtDeadline() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["HANG_HTML": "1"])
        let started = ContinuousClock.now
        let report = try Self.check(plugin, tests: [.renderTextAndHTML, .scanTime], timeout: .milliseconds(500))
        #expect(ContinuousClock.now - started < .seconds(5))
        let render = try #require(report.results.first)
        #expect(render.findings.first?.code == .pluginTimeout)
        #expect(render.findings.first?.actual.contains("rendering it as text/html") == true)
        #expect(report.results.last?.outcome(strict: false) == .passed)
    }

    @Test("a warning fails its test only with strict")
    func warningsFailOnlyWhenStrict() throws {
        let scratch = try Scratch()
        let plugin = try Fixtures.build("conformance", into: scratch.url, defines: ["BREAK_EXPORTS": "1"])
        let report = try Self.check(plugin, tests: [.exportedSymbols])
        let result = try #require(report.results.first)
        #expect(result.outcome(strict: false) == .warned)
        #expect(result.findings.first?.actual.contains("conformance_helper") == true)
        #expect(report.passed)
        #expect(try Self.check(plugin, tests: [.exportedSymbols], strict: true).passed == false)
    }

    @Test("--only and --skip choose tests; an unknown name is unknown_test with the closest name")
    func selection() throws {
        #expect(try ConformanceSelection.tests(only: [], skip: []) == ConformanceTest.allCases)
        #expect(try ConformanceSelection.tests(only: ["scan-time", "entry-and-abi"], skip: []) == [.entryAndABI, .scanTime])
        #expect(try ConformanceSelection.tests(only: [], skip: ["exported-symbols"]).count == ConformanceTest.allCases.count - 1)
        let nothing = #expect(throws: GraftError.self) { try ConformanceSelection.tests(only: ["scan-time"], skip: ["scan-time"]) }
        #expect(nothing?.code == .invalidConfig)
        for (typo, meant) in [("rendr", "render-text-and-html"), ("symbols", "exported-symbols"), ("entry-and-abbi", "entry-and-abi")] {
            let error = #expect(throws: GraftError.self) { try ConformanceSelection.tests(only: [typo], skip: []) }
            #expect(error?.code == .unknownTest)
            #expect(error?.message.contains("Did you mean '\(meant)'?") == true, "\(error?.message ?? "")")
        }
        #expect(throws: GraftError.self) { try ConformanceSelection.tests(only: [], skip: ["create"]) }
    }

    @Test("the first-party plugins and the third-party C example conform")
    func firstPartyPluginsConform() throws {
        let scratch = try Scratch()
        let example = scratch.file("librating.so")
        let built = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-I", Fixtures.includeFolder.path,
             Fixtures.root.appendingPathComponent("Examples/c-plugin/rating.c").path, "-o", example.path])
        #expect(built.status == 0, "\(built.stderr)")
        for plugin in [try BuildProducts.plugin("DatePicker"), try BuildProducts.plugin("Checkout"), example] {
            let report = try Self.check(plugin)
            for result in report.results {
                #expect(result.outcome(strict: false) != .failed, "\(plugin.lastPathComponent) \(result.test.name): \(result.findings.map(\.sentence))")
            }
        }
    }
}

/// `graft check --conformance` on a WebAssembly plugin: the same tests, on
/// the guest (docs/WasmABI.md); a trap or a call out of fuel fails the test
/// it happened in, at the step it named.
@Suite("Conformance tests of WebAssembly plugins")
struct WasmConformanceTests {
    /// Every test but scan-time, whose 100 ms budget is for a release build: a
    /// debug build's interpreter runs guest code many times slower. For the
    /// same reason each test may take two minutes here.
    static let tests = ConformanceTest.allCases.filter { $0 != .scanTime }

    @Test("a .wasm written against the ABI passes every test; concurrent-calls is skipped, its calls run one at a time")
    func goodModulePasses() throws {
        let scratch = try Scratch()
        let report = try ConformanceTests.check(try Fixtures.buildWasm("hello", into: scratch.url), tests: Self.tests, strict: true, timeout: .seconds(120))
        #expect(report.results.map(\.test) == Self.tests)
        for result in report.results {
            #expect(result.findings.isEmpty, "\(result.test.name): \(result.findings.map(\.sentence))")
            #expect(result.outcome(strict: true) == (result.test == .concurrentCalls ? .skipped : .passed), "\(result.test.name)")
        }
        #expect(report.passed)
    }

    @Test("a graft.h plugin built with the bridge passes too, its declared data folder granted for the run")
    func bridgedPluginPasses() throws {
        let scratch = try Scratch()
        let shared = scratch.file("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let plugin = try Fixtures.buildWasm(
            "folders", into: scratch.file("plugins"), defines: ["FOLDERS_READ": "\"\(shared.path)\""], sources: [Fixtures.wasmBridge])
        let report = try ConformanceTests.check(plugin, tests: Self.tests, strict: true, timeout: .seconds(120))
        for result in report.results {
            #expect(result.findings.isEmpty, "\(result.test.name): \(result.findings.map(\.sentence))")
        }
        #expect(report.passed)
    }

    @Test("each broken module fails its test, naming the key and, for a trap, the step", arguments: [
        ("HELLO_ENTRY_TRAPS", ConformanceTest.entryAndABI, "graft_entry", GraftError.Code.pluginCrashed),
        ("HELLO_BAD_DESCRIPTION", .descriptorConsistency, "descriptors", .invalidDescriptor),
        ("HELLO_HOSTILE_TRAPS", .hostileInputs, "greeting@1", .pluginCrashed),
    ])
    func brokenModules(define: String, test: ConformanceTest, key: String, code: GraftError.Code) throws {
        let scratch = try Scratch()
        let report = try ConformanceTests.check(
            try Fixtures.buildWasm("hello", into: scratch.url, defines: [define: "1"]), tests: Self.tests, timeout: .seconds(120))
        let failed = report.results.filter { $0.outcome(strict: false) == .failed }
        #expect(failed.map(\.test) == [test], "\(failed.map { "\($0.test.name): \($0.findings.map(\.sentence))" })")
        let finding = try #require(failed.first?.findings.first)
        #expect(finding.key == key, "\(finding.sentence)")
        #expect(finding.actual.contains(code.rawValue), "\(finding.sentence)")
        if define == "HELLO_HOSTILE_TRAPS" { #expect(finding.actual.contains("while creating it with"), "\(finding.sentence)") }
    }

    @Test("a graft_ export the ABI does not define is a warning: the host never calls it")
    func misspeltExport() throws {
        let scratch = try Scratch()
        let report = try ConformanceTests.check(
            try Fixtures.buildWasm("hello", into: scratch.url, defines: ["HELLO_MISSPELT_EXPORT": "1"]), tests: [.exportedSymbols])
        let result = try #require(report.results.first)
        #expect(result.outcome(strict: false) == .warned)
        #expect(result.findings.first?.actual.contains("graft_rendr") == true, "\(result.findings.map(\.sentence))")
    }
}
