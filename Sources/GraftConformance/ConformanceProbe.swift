import FoundationEssentials
import GraftHost
import GraftSupport
import Logging

/// What a check works with in the conformance child: the plugin file, the
/// plugin loaded as a host loads it (timed), and where findings go. Before
/// each call into the plugin that may crash or hang, a check says what it is
/// about to do (`step`), so that the host can name it if the process dies.
///
/// `@unchecked Sendable`: the findings are guarded by `lock` (the concurrent
/// test reports from several threads); everything else is used by the
/// test's main thread only.
final class ConformanceProbe: @unchecked Sendable {
    let file: PluginFile
    let logger: Logger
    private let lock = Lock()
    private var collected = ConformanceVerdict()
    /// What the last `step` named: where a guest's trap is reported.
    private var current = ConformanceStep(key: "plugin", what: "starting the test")

    init(file: PluginFile, logger: Logger) {
        self.file = file
        self.logger = logger
    }

    var verdict: ConformanceVerdict { lock.withLock { collected } }

    // MARK: Reporting

    /// Tells the host what comes next, before it is done.
    func step(_ key: String, _ what: String) {
        lock.withLock { current = ConformanceStep(key: key, what: what) }
        ChildJob.Service.step(ConformanceStep(key: key, what: what).jobBytes)
    }

    /// Whether the plugin is a WebAssembly module: its code runs in a guest
    /// here, and a trap or a call out of fuel is an error, not a dead process.
    var isWebAssembly: Bool { PluginInspection.isWebAssembly(file) }

    /// A guest's call trapped or ran out of fuel: what would have ended a
    /// shared library's test process fails the test at the step it was in.
    func guestFailed(_ error: GraftError) {
        lock.withLock {
            appendFinding(ConformanceFinding(
                .failure, key: current.key, expected: "the test to run to its end",
                actual: "\(error.code.rawValue) while \(current.what): \(error.message)", code: error.code))
        }
    }

    func fail(_ key: String, expected: String, got actual: String) {
        lock.withLock { appendFinding(ConformanceFinding(.failure, key: key, expected: expected, actual: actual)) }
    }

    func warn(_ key: String, expected: String, got actual: String) {
        lock.withLock { appendFinding(ConformanceFinding(.warning, key: key, expected: expected, actual: actual)) }
    }

    private func appendFinding(_ finding: ConformanceFinding) { collected.findings.append(finding) }

    func note(_ text: String) { lock.withLock { collected.notes.append(text) } }

    func skip(_ reason: String) { lock.withLock { collected.skipReason = reason } }

    var hasFailures: Bool { lock.withLock { collected.findings.contains { $0.severity == .failure } } }

    // MARK: The plugin

    struct Load {
        let plugin: LoadedPlugin?
        let problems: [GraftError]
        let duration: Duration
    }

    /// The plugin loaded as the scanner loads it: ELF checks, dlopen (its
    /// constructors), graft_entry, the ABI check, init, every descriptor, the
    /// native signatures prepared. Done once, on first use, and timed.
    private(set) lazy var load: Load = {
        step("plugin", "loading it (constructors, graft_entry, init, descriptors)")
        let started = ContinuousClock.now
        let (plugin, problems) = isWebAssembly ? PluginInspection.loadGuest(file, logger: logger, grantingDeclared: true) : PluginInspection.load(file, logger: logger)
        return Load(plugin: plugin, problems: problems, duration: ContinuousClock.now - started)
    }()

    /// The loaded plugin; nil, and the test skipped, when it does not load
    /// (entry-and-abi and descriptor-consistency report why).
    func plugin() -> LoadedPlugin? {
        if let plugin = load.plugin { return plugin }
        let code = load.problems.first?.code.rawValue ?? "unknown reason"
        skip("the plugin does not load (\(code)); entry-and-abi and descriptor-consistency say why")
        return nil
    }

    func components(of plugin: LoadedPlugin) -> [RegisteredComponent] {
        plugin.info.components.map { RegisteredComponent(contract: $0, plugin: plugin) }
    }

    /// The plugin's components, each ready to create; none, with the test
    /// skipped and why, when the plugin does not load or declares none.
    func componentsToCheck() -> [RegisteredComponent] {
        guard let plugin = plugin() else { return [] }
        let components = self.components(of: plugin)
        if components.isEmpty { skip("the plugin declares no components") }
        return components
    }

    /// A host of this process with the plugin registered, for validators and
    /// actions as a host calls them.
    private(set) lazy var host: GraftHost? = {
        guard let plugin = plugin() else { return nil }
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, mapping: .atStart),
            logger: logger)
        do throws(GraftError) {
            try host.register(plugin, file: file)
        } catch {
            fail("plugin", expected: "a plugin a host can register", got: "\(error.code.rawValue): \(error.message)")
            return nil
        }
        return host
    }()
}
