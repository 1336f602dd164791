import CGraftSystem
import FoundationEssentials
import GraftHost
import GraftSupport
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The host's side of `graft check --conformance`: each test runs in a child
/// of its own (`graft-child conform`, a `ChildJob`, started and reaped like
/// every Graft child), so a plugin that crashes or hangs in one test
/// fails that test only and the next one starts on a fresh process. Every
/// wait has the test's deadline; past it the child is killed.
package struct ConformanceSupervisor: Sendable {
    package var tests: [ConformanceTest]
    package var strict: Bool
    package var scanning: Scanning
    package var trust: TrustPolicy
    /// The sandbox of each test's child (nil: unsandboxed).
    package var sandbox: ChildSandbox.Request?
    /// Replaces every test's own deadline when set.
    package var testTimeout: Duration?
    package var logger: Logger

    package init(
        tests: [ConformanceTest] = ConformanceTest.allCases, strict: Bool = false, scanning: Scanning = Scanning(),
        trust: TrustPolicy = .strict, sandbox: ChildSandbox.Request? = SandboxSettings().request, testTimeout: Duration? = nil,
        logger: Logger = Logger(label: "graft.conformance")
    ) {
        self.sandbox = sandbox
        self.tests = tests
        self.strict = strict
        self.scanning = scanning
        self.trust = trust
        self.testTimeout = testTimeout
        self.logger = logger
    }

    /// Runs the tests on the file at `path`. Throws when the file cannot be
    /// opened or trusted, or no child can be started: then no test can run.
    package func check(pluginAt path: String) throws(GraftError) -> ConformanceReport {
        let file = try PluginFile(opening: path)
        var folders: [String: String?] = [:]
        if let violation = trust.violation(of: file, folders: &folders) { throw violation }
        guard let executable = ScannerLocation.find(configured: scanning.executable) else {
            throw GraftError(
                .scannerUnavailable,
                "conformance tests run each in a child process, and no graft-child was found (beside graft, through GRAFT_CHILD or on PATH); `swift build --product graft-child` builds it.")
        }
        // Each test's child is granted what the plugin declares (a data folder
        // of its own for this run): an act it is still refused is a finding.
        var sandbox = self.sandbox
        var dataFolder: String?
        defer { if let dataFolder { _ = graft_remove_path(dataFolder) } }
        if let request = sandbox {
            let described = GraftHost.check(pluginAt: path, scanning: scanning, sandbox: SandboxSettings(mode: request.mode), logger: logger)
            if let plugin = described.plugin, !plugin.permissions.isEmpty {
                dataFolder = FilePaths.makeTemporaryFolder(prefix: "graft-conformance")
                guard dataFolder != nil else {
                    throw GraftError(
                        .scannerUnavailable,
                        "could not create a data folder for the conformance run of \(path): \(String(cString: strerror(errno))).", path: path)
                }
                let settings = SandboxSettings(
                    mode: request.mode, grants: [plugin.id: plugin.permissions.map(\.permission)], dataFolder: dataFolder)
                sandbox = try settings.request(forPlugin: plugin.id)
            }
        }
        var results: [ConformanceResult] = []
        for test in tests { results.append(try run(test, on: file, executable: executable, sandbox: sandbox)) }
        return ConformanceReport(path: path, strict: strict, results: results)
    }

    private func run(
        _ test: ConformanceTest, on file: PluginFile, executable: String, sandbox: ChildSandbox.Request?
    ) throws(GraftError) -> ConformanceResult {
        let started = ContinuousClock.now
        let deadline = testTimeout ?? test.deadline
        let output = { (line: String) in self.logger.notice("\(test.name): \(line)", metadata: ["plugin": "\(file.path)"]) }
        let data = sandbox.flatMap { request in request.policy.writeFolders.first }
        let child = try ChildJob(
            executable: executable, mode: "conform", environment: data.map { ["GRAFT_DATA_DIR": $0] } ?? [:],
            sandbox: sandbox, logger: logger, onOutput: output)
        // What the child said it was about to do: where a crash or hang happened.
        var step = ConformanceStep(key: "plugin", what: "starting the test")
        func result(_ verdict: ConformanceVerdict) -> ConformanceResult {
            // What the sandbox refused the plugin during the test (its filter
            // tells the host, whatever the test's process says or does).
            let refused = child.sandboxDenials().map { denial in
                ConformanceFinding(
                    .warning, key: "sandbox",
                    expected: "no act the sandbox refuses, or a permission declared for it (graft.permissions/1)",
                    actual: "refused: \(denial.act.escapingControls) (\(denial.call))", code: .sandboxDenied)
            }
            return ConformanceResult(
                test: test, findings: verdict.findings + refused, notes: verdict.notes, skipReason: verdict.skipReason,
                duration: ContinuousClock.now - started)
        }
        func died(_ actual: String, _ code: GraftError.Code) -> ConformanceResult {
            result(ConformanceVerdict(findings: [
                ConformanceFinding(.failure, key: step.key, expected: "the test to run to its end", actual: actual, code: code)
            ]))
        }
        let job = ConformanceJob(test: test.name, path: file.path, realPath: file.realPath)
        guard child.send(job.jobBytes, file: file) else {
            return died("its process \(child.termination()) before it was given the plugin", .pluginCrashed)
        }
        let until = started + deadline
        while true {
            switch child.next(until: until, onOutput: output) {
            case .step(let bytes):
                if let said = ConformanceStep(jobBytes: bytes) { step = said }
            case .answer(let bytes):
                guard let verdict = ConformanceVerdict(jobBytes: bytes) else {
                    return died("an answer that does not decode", .pluginCrashed)
                }
                return result(verdict)
            case .brokeProtocol(let reason):
                return died("the test's process broke the protocol (\(reason))", .pluginCrashed)
            case .died(let termination):
                return died("its process \(termination) while \(step.what)", .pluginCrashed)
            case .timedOut:
                return died("no answer within \(deadline) (it was still \(step.what)); its process was killed", .pluginTimeout)
            }
        }
    }
}
