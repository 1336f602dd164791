import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftFlows
import GraftCommandLine
import GraftConformance
import GraftHost
import GraftSupport

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a plugin file on its own, or a flow against the plugins on the search path, and report every problem.",
        discussion: """
            graft check PATH.so loads one plugin file alone: ABI, descriptors, debugConfigs, duplicates, signatures.
            graft check --conformance PATH.so runs the conformance tests on it, each in a child process of its own
            (--list-tests names and describes them; --only and --skip choose; --strict fails on warnings too).
            Exits 0 when every test passes, 1 when one fails, 2 for a usage error or a file that cannot be opened.
            graft check --flow FLOW.json compares the flow's component and action definitions and every instance
            with what the plugins register (missing components or versions, inputs, events, payloads, params),
            and checks the flow's bindings to variables and that every screen is reachable.
            Exits 0 only when clean, 1 when problems are found, 2 when the flow cannot be read.
            """)

    @Argument(help: ArgumentHelp("The plugin file.", valueName: "path.so"))
    var path: String?

    @Option(help: ArgumentHelp("A flow document to check against the plugins on the search path.", valueName: "flow.json"))
    var flow: String?

    @Flag(help: "Run the conformance tests on the plugin file, each in a child process of its own.")
    var conformance = false

    @Option(name: .customLong("only"), help: ArgumentHelp("With --conformance: run only this test (repeatable).", valueName: "test"))
    var onlyTests: [String] = []

    @Option(name: .customLong("skip"), help: ArgumentHelp("With --conformance: do not run this test (repeatable).", valueName: "test"))
    var skippedTests: [String] = []

    @Flag(help: "With --conformance: warnings fail their test too (exported symbols, a newer struct_size, HTML for text/plain, …).")
    var strict = false

    @Flag(help: "Name and describe every conformance test, then exit.")
    var listTests = false

    @Option(help: ArgumentHelp("With --conformance: how long each test's process may run, in seconds (default: each test's own, 10–60 s).", valueName: "seconds"))
    var testTimeout: Double?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if listTests { return }
        let conformanceOnly = !onlyTests.isEmpty || !skippedTests.isEmpty || strict || testTimeout != nil
        if conformanceOnly && !conformance {
            throw ValidationError("--only, --skip, --strict and --test-timeout go with --conformance.")
        }
        if conformance && flow != nil { throw ValidationError("--conformance checks a plugin file, not a flow.") }
        if let testTimeout, !(testTimeout > 0) { throw ValidationError("--test-timeout must be a positive number of seconds.") }
        switch (path, flow) {
        case (nil, nil): throw ValidationError("Give a plugin file to check, or --flow FLOW.json.")
        case (.some, .some): throw ValidationError("Give a plugin file or --flow, not both; add plugins with --plugin-path.")
        default: break
        }
    }

    func run() throws {
        if listTests {
            ConformanceReportText.listTests(json: options.json)
        } else if conformance, let path {
            try checkConformance(at: path)
        } else if let flow {
            try checkFlow(at: flow)
        } else if let path {
            try checkPlugin(at: path)
        }
    }

    private func checkPlugin(at path: String) throws {
        let check = GraftHost.check(pluginAt: path, scanning: options.scanning, sandbox: options.settings.sandboxSettings)
        let clashes = check.plugin.map { clashesOnSearchPath($0, at: path) } ?? []
        // A warning, not a problem of the file: hosts that trust a publisher for its id would refuse it unsigned.
        let unsigned = check.plugin.flatMap { PluginSigning.refusal(ofPluginAt: path, declaring: $0, policy: options.settings.signaturePolicy) }
        if options.json {
            var object: [String: GraftValue] = [
                "path": .string(path), "ok": .bool(check.isClean), "problems": .list(check.problems.map(\.json)),
                "clashes": .list(clashes.map { .string($0) }),
                "signature": unsigned.map { .object(["code": .string($0.code.rawValue), "message": .string($0.message)]) } ?? .null,
            ]
            if let plugin = check.plugin { object["plugin"] = PluginReport.json(plugin: plugin) }
            Output.json(.object(object))
        } else if let plugin = check.plugin {
            Output.line("\(path): ok — \(plugin.id) \(plugin.version), ABI \(plugin.abi)")
            Output.line("  \(plugin.components.count) component(s), \(plugin.validators.count) validator(s), \(plugin.actions.count) action(s)")
            for clash in clashes { Output.line("  warning: \(clash)") }
            if let unsigned { Output.line("  warning: \(unsigned.code.rawValue): \(unsigned.message)") }
        } else {
            Output.line("\(path): \(check.problems.count) problem\(check.problems.count == 1 ? "" : "s")")
            for problem in check.problems { Output.line("  \(problem.code.rawValue): \(problem.message)") }
        }
        if !check.isClean { throw ExitCode(1) }
    }

    /// The names `plugin` declares that other plugins on the search path
    /// declare too: where both load, one answers the bare name (a warning,
    /// not a problem of the file).
    private func clashesOnSearchPath(_ plugin: PluginDescription, at path: String) -> [String] {
        let host = options.makeHost()
        let real = FilePaths.resolvingSymlinks(path)
        let others = host.plugins.filter { $0.id != plugin.id && FilePaths.resolvingSymlinks($0.path) != real }
        var clashes: [String] = []
        func note(_ kind: String, _ name: ComponentReference, _ declares: (PluginDescription) -> Bool) {
            for other in others where declares(other) {
                clashes.append(
                    "\(kind) '\(name)' is also declared by \(other.id) (\(other.path)) on the search path: where both load, one answers '\(name.shortName)' and the other only its qualified name (--prefer \(name.shortName)=ID chooses).")
            }
        }
        for contract in plugin.components {
            note("component", contract.reference) { $0.components.contains { $0.reference == contract.reference } }
        }
        for validator in plugin.validators {
            note("validator", ComponentReference(key: validator.name, version: validator.version)) {
                $0.validators.contains { $0.name == validator.name && $0.version == validator.version }
            }
        }
        for action in plugin.actions {
            note("action", ComponentReference(key: action.key, version: action.version)) {
                $0.actions.contains { $0.key == action.key && $0.version == action.version }
            }
        }
        return clashes
    }

    private func checkConformance(at path: String) throws {
        LoggingSetup.bootstrap(level: options.logLevel)
        let report: ConformanceReport
        do throws(GraftError) {
            let tests = try ConformanceSelection.tests(only: onlyTests, skip: skippedTests)
            let supervisor = ConformanceSupervisor(
                tests: tests, strict: strict, scanning: options.scanning, trust: TrustPolicy(allowsUntrusted: options.allowUntrusted),
                sandbox: options.settings.sandboxSettings.request,
                testTimeout: testTimeout.map { .milliseconds(Int64(($0 * 1000).rounded(.up))) })
            report = try supervisor.check(pluginAt: path)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        // Names shared with the search path: a warning beside the report, never a failed test (the file is not at fault).
        let described = GraftHost.check(pluginAt: path, scanning: options.scanning, sandbox: options.settings.sandboxSettings).plugin
        let clashes = described.map { clashesOnSearchPath($0, at: path) } ?? []
        if options.json {
            guard case .object(var object) = report.json else { return Output.json(report.json) }
            object["clashes"] = .list(clashes.map { .string($0) })
            Output.json(.object(object))
        } else {
            for line in ConformanceReportText.lines(report) { Output.line(line) }
            for clash in clashes { Output.line("warning: \(clash)") }
        }
        if !report.passed { throw ExitCode(1) }
    }

    private func checkFlow(at path: String) throws {
        let document = try FlowLoading.document(at: path, json: options.json)
        let report = FlowChecker(host: options.makeHost()).check(document)
        if options.json {
            guard case .object(var object) = report.json else { return }
            object["flow"] = .string(path)
            Output.json(.object(object))
        } else {
            for line in CheckReportText.lines(report, flowPath: path, flow: document) { Output.line(line) }
        }
        if !report.isClean { throw ExitCode(1) }
    }
}
