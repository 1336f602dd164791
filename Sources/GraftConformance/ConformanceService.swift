import FoundationEssentials
import GraftHost
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The child's side of one conformance test (`graft-child conform`): it
/// receives the test's name and the plugin file's descriptor, runs that one
/// test in this process, answers with the verdict and exits with `_exit`, so
/// that no plugin deinit or destructor can turn a verdict into a crash.
package enum ConformanceService {
    package static func serve() -> Never {
        guard let (request, descriptor) = ChildJob.Service.request() else { ChildJob.Service.finish() }
        guard let job = ConformanceJob(jobBytes: request), let test = ConformanceTest(rawValue: job.test) else {
            close(descriptor)
            ChildJob.Service.finish()
        }
        // To the host's log (it shows them at notice level): the plugin's own
        // warnings and the drift a hostile input causes.
        var logger = Logger(label: "graft.conformance", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        var verdict = ConformanceVerdict()
        do throws(GraftError) {
            let probe = ConformanceProbe(
                file: try PluginFile(adopting: descriptor, path: job.path, realPath: job.realPath), logger: logger)
            test.check(probe)
            verdict = probe.verdict
        } catch {
            verdict.findings = [ConformanceFinding(.failure, key: "image", expected: "a plugin file the test can open", actual: error.message)]
        }
        ChildJob.Service.answer(verdict.jobBytes)
    }
}

extension ConformanceTest {
    /// Runs this test on the probe's plugin, in this (child) process.
    func check(_ probe: ConformanceProbe) {
        switch self {
        case .entryAndABI: EntryAndABICheck.run(probe)
        case .descriptorConsistency: DescriptorConsistencyCheck.run(probe)
        case .createFromDebugConfig: CreateFromDebugConfigCheck.run(probe)
        case .renderTextAndHTML: RenderCheck.run(probe)
        case .interactions: InteractionsCheck.run(probe)
        case .createDestroy1000: CreateDestroyCheck.run(probe)
        case .hostileInputs: HostileInputsCheck.run(probe)
        case .validatorEdgeValues: ValidatorEdgeValuesCheck.run(probe)
        case .actionMissingParams: ActionMissingParamsCheck.run(probe)
        case .concurrentCalls: ConcurrentCallsCheck.run(probe)
        case .initDeinitInit: ReinitCheck.run(probe)
        case .scanTime: ScanTimeCheck.run(probe)
        case .exportedSymbols: ExportedSymbolsCheck.run(probe)
        }
    }
}
