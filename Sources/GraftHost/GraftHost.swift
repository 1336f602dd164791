import FoundationEssentials

#if !Host
#error("GraftHost needs Graft's Host trait: name Graft with traits: [\"Host\"], or with its default traits.")
#endif

#if canImport(Glibc)
import Glibc
#endif
import GraftSupport
import Logging

/// The host: finds plugins on a search path, loads them, keeps their
/// components in a registry, and creates instances for flows.
///
///     let host = GraftHost(searchPath: .standard(explicit: ["plugins"]))
///     host.loadPlugins()
///     let picker = try host.makeInstance(of: "date_picker@2")
///     print(try picker.render().text)
///
/// A plugin that fails to load is recorded in `failures` with its error and
/// never stops the others.
public final class GraftHost: Sendable {
    /// This host's version, given to plugins at `init`.
    public static let version = "0.1.0"

    public let configuration: GraftConfiguration
    var searchPath: SearchPath { configuration.searchPath }
    /// The one owner of the host's mutable state: the loaded plugins, every
    /// name they hold, their runners and what the scanners said. (The parts
    /// below each keep their own: open instances, image copies, the cache,
    /// sandbox reports.)
    let table: PluginTable
    package var registry: ComponentRegistry { table.components }
    /// The table's validators, kept here too: `validate` reaches them with
    /// one load (through the table, a fast validation took 10% longer in
    /// `graft bench validators`).
    let validatorRegistry: ValidatorRegistry
    /// Whether every plugin is mapped from a private copy of its file, so the
    /// file can be rebuilt or rewritten in place while the host runs (hot swap).
    var loadsFromCopies: Bool { configuration.loadsFromCopies }
    let loader: PluginLoader
    let logger: Logger
    let images = ImageStore()
    /// Whether a file may load under the configuration's trust policy.
    let trust: TrustGate
    /// The scanner child's client; nil when scanning in process.
    let scanner: Scanner?
    /// What earlier scans found; nil without a cache.
    let cache: RegistryCache?
    /// The pins to enforce, or why the lock file could not be read; nil when
    /// the host does not pin.
    let pins: Result<LockFile, GraftError>?
    /// The configuration's sandbox with the lock file's grants (`sandboxSettings(_:pins:)`),
    /// worked out once: every runner a host makes asks for it.
    package let sandboxSettings: SandboxSettings
    let swapObservers = Observers<SwapEvent>()
    /// Serializes reloads: one swap at a time keeps "old → new" meaningful.
    /// A lock, not state: what a swap changes is in `table`.
    let swapping = Lock()
    /// The open instances; tells the host when one closes.
    let tracker: InstanceTracker
    /// How a runner reaches its child.
    let connectRunner: RunnerConnect
    /// Whether a thread per runner child reads its answers (measured, not the default).
    let runnerReaderThread: Bool
    /// The latest acts the sandbox refused each plugin, and who is told of them.
    let sandboxReports = SandboxReports()

    /// - Parameter loadsFromCopies: map every plugin from a private copy of its
    ///   file (see `ImageStore`): set it when plugin files may be rebuilt while
    ///   the host runs. `reload(pluginAt:)` always maps new builds from copies.
    public convenience init(
        searchPath: SearchPath = .standard(), logger: Logger = Logger(label: "graft.host"), loadsFromCopies: Bool = false
    ) {
        self.init(
            configuration: GraftConfiguration(searchPath: searchPath, loadsFromCopies: loadsFromCopies), logger: logger)
    }

    public convenience init(configuration: GraftConfiguration, logger: Logger = Logger(label: "graft.host")) {
        self.init(configuration: configuration, logger: logger, connectRunner: ChildProcess.connectRunner)
    }

    /// A host whose runner children take frames through a shared-memory
    /// ring (`ring`, the default) or on their socket alone, and whose callers
    /// read their answers themselves (the default) or from a thread per
    /// child that reads for them (`readerThread`): `graft bench` measures
    /// each beside the default.
    package convenience init(configuration: GraftConfiguration, logger: Logger, runnersUseRing ring: Bool, readerThread: Bool = false) {
        self.init(configuration: configuration, logger: logger, connectRunner: ChildProcess.connectRunner(ring: ring), readerThread: readerThread)
    }

    /// With `connectRunner`, isolated plugins run where it connects (tests
    /// run them over a `MemoryTransport`, in this process).
    init(configuration: GraftConfiguration, logger: Logger, connectRunner: @escaping RunnerConnect, readerThread: Bool = false) {
        self.connectRunner = connectRunner
        self.runnerReaderThread = readerThread
        self.configuration = configuration
        let searchPath = configuration.searchPath
        self.logger = logger
        self.trust = TrustGate(configuration.trust)
        var preferred: [ComponentReference: String] = [:]
        for (name, id) in configuration.preferredPlugins.sorted(by: { $0.key < $1.key }) {
            guard let reference = try? ComponentReference(parsing: name), reference.plugin == nil,
                ComponentReference.isValidPluginID(id)
            else {
                let problem = GraftError(
                    .invalidConfig,
                    "preferredPlugins: '\(name.escapingControls)' → '\(id.escapingControls)' is not a bare name (iso_date, date_picker@2) and a plugin id; it is ignored.",
                    key: name)
                logger.warning("\(problem)")
                continue
            }
            preferred[reference] = id
        }
        self.table = PluginTable(preferred: preferred)
        self.tracker = InstanceTracker(table: table)
        self.validatorRegistry = table.validators
        var loaderLogger = logger
        loaderLogger[metadataKey: "subsystem"] = "loader"
        self.loader = PluginLoader(logger: loaderLogger)
        var scannerLogger = logger
        scannerLogger[metadataKey: "subsystem"] = "scanner"
        let executable = configuration.scanning.inChild
            ? ScannerLocation.find(configured: configuration.scanning.executable) : nil
        scanner = executable.map { executable in
            Scanner(
                executable: executable, deadline: configuration.scanning.deadline,
                sandbox: configuration.sandbox.request?.limited(by: configuration.limits), logger: scannerLogger)
        }
        if configuration.scanning.inChild, executable == nil {
            let place = configuration.scanning.executable.map { "at \($0)" } ?? "beside this executable, through GRAFT_CHILD or on PATH"
            if configuration.sandbox.mode == .off {
                logger.warning(
                    "no \(ScannerLocation.executableName) found (\(place)): plugins load straight into this process, and one that crashes while loading takes it down.")
            } else {
                logger.error(
                    "no \(ScannerLocation.executableName) found (\(place)): no plugin can load, since plugins load only in a sandboxed child (or turn the sandbox off).")
            }
        }
        cache = configuration.cacheFolder.map { [logger] folder in
            RegistryCache(folder: folder) { problem in logger.warning("registry cache: \(problem)") }
        }
        pins = configuration.lockFile.map { path in Result { () throws(GraftError) in try LockFile(contentsOf: path) } }
        sandboxSettings = Self.sandboxSettings(configuration, pins: pins)
        if case .failure(let error) = pins { logger.error("\(error); no plugin will load in locked mode.") }
        for warning in searchPath.warnings { logger.warning("\(warning)") }
        if configuration.trust.allowsUntrusted {
            logger.warning("trust checks are off (allowsUntrusted): plugin files other users could have written will load.")
        }
        tracker.host = self
        scanner?.onDenials { [weak self] file, outcome, denials in
            guard let self else { return }
            let id: String? = if case .described(let info) = outcome { info.id } else { nil }
            self.noteSandboxDenials(denials, pluginID: id, path: file.path, during: "its scan")
        }
    }

    deinit {
        // A host that goes away (the process ending, most often) unloads
        // nothing: a plugin's own threads may still run in its image.
        for plugin in table.loaded {
            plugin.staysMapped.store(true, ordering: .relaxed)
        }
    }

    // MARK: Isolation

    /// Whether plugins run in child processes: isolation asked for, and a
    /// runner executable found. Without one, a sandboxed host loads nothing
    /// (`scanner_unavailable`); only with the sandbox off does it warn and
    /// run them here.
    var isolates: Bool { configuration.isolation != .inProcess && scanner != nil }

    /// The runner for a new isolated plugin: its own, or the host's shared
    /// one (a plugin granted anything always gets its own: the sandbox of a
    /// child is the same for every plugin in it).
    func runner(for info: PluginDescription) -> PluginRunner? {
        guard isolates, let scanner else { return nil }
        let granted = !(sandboxSettings.grants[info.id] ?? []).isEmpty
        // A runner for the plugin `id` (nil: shared); the callers keep it in the table.
        func make(_ id: String?) -> PluginRunner {
            let limits = configuration.limits
            let settings = sandboxSettings
            let request: @Sendable () -> Result<ChildSandbox.Request?, GraftError> = {
                Result { () throws(GraftError) in
                    try (id.map { id throws(GraftError) in try settings.request(forPlugin: id) } ?? settings.request)?.limited(by: limits)
                }
            }
            // Worked out when a child starts, but now for a plugin granted
            // something: its data folder exists once the host lists it.
            let eager = granted ? request() : nil
            return PluginRunner(
                executable: scanner.executable,
                limits: PluginRunner.Limits(
                    call: limits.call, validator: limits.validator, load: scanner.deadline, memory: limits.memory,
                    output: limits.output, idleCPU: limits.idleCPU),
                mapsCopies: loadsFromCopies,
                sandbox: { eager ?? request() },
                logger: logger,
                open: { [weak self] plugin throws(GraftError) in
                    guard let self else { throw GraftError(.pluginNotFound, "the host of \(plugin.info.path) is gone.") }
                    return try self.openForRunner(plugin)
                },
                quarantine: { [weak self] plugin, error in self?.quarantine(plugin, error) },
                report: { [weak self] plugin, denials, logged in
                    self?.noteSandboxDenials(denials, pluginID: plugin.info.id, path: plugin.info.path, during: "a call", logged: logged)
                },
                connect: connectRunner, readerThread: runnerReaderThread)
        }
        guard configuration.isolation == .shared, !granted else {
            let runner = make(info.id)
            table.keep(runner)
            return runner
        }
        return table.sharedRunner { make(nil) }
    }

    /// The configuration's sandbox, with what a lock file grants added (in
    /// locked mode, each pinned plugin gets the permissions its entry records).
    static func sandboxSettings(_ configuration: GraftConfiguration, pins: Result<LockFile, GraftError>?) -> SandboxSettings {
        var settings = configuration.sandbox
        if case .success(let lock) = pins {
            for (id, permissions) in lock.grants { settings.grants[id, default: []] += permissions }
            for (id, limit) in lock.dataLimits { settings.dataFolderLimits[id] = limit }
        }
        return settings
    }

    // MARK: Registering

    /// Registers everything `plugin` declares (a name another plugin owns is
    /// answered only qualified: see `PluginTable`). With `overriding`, its
    /// components own their bare names while it is registered.
    package func register(
        _ plugin: LoadedPlugin, file: PluginFile? = nil, realPath: String? = nil, overriding: Bool = false
    ) throws(GraftError) {
        try table.register(
            PluginTable.Entry(plugin: plugin, realPath: file?.realPath ?? realPath ?? plugin.info.path, file: file?.identity.file),
            overriding: overriding)
    }

    /// Every component, action and validator contract by each name that
    /// reaches it (qualified, and bare for its owner), read at once: what
    /// the flow checker checks names against.
    package var namedEntries: (
        components: [ComponentReference: RegisteredComponent], actions: [ComponentReference: RegisteredAction],
        validators: [ComponentReference: ValidatorContract]
    ) {
        (table.components.byName, table.actions.byName, table.validatorContracts())
    }

    /// Every loaded plugin, in load order.
    public var plugins: [PluginDescription] {
        table.loadedMarkingRemovals.map { plugin, removed in
            var info = plugin.info
            info.isMapped = plugin.isMapped
            info.isRemoved = removed
            return info
        }
    }

    /// Every plugin file that failed to load, with why.
    public var failures: [PluginFailure] { table.failures }

    // MARK: Components

    /// Every registered component, sorted by key then version.
    public var components: [RegisteredComponent] { registry.all }

    /// The component registered under `reference`. Version 1 also answers the
    /// bare key. Throws `custom_component_not_found`, or
    /// `component_version_mismatch` listing the versions registered.
    public func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredComponent {
        try registry.resolve(reference)
    }

    /// Creates an instance of the component named by `reference`, written as
    /// a flow names it (`paywall`, `date_picker@2`, `com.acme.widgets/chart`):
    /// a name held in a `String` variable, say. Throws `invalid_reference` for
    /// one that does not parse, then as `makeInstance(of:id:inputs:containerSize:onEvent:)`.
    public func makeInstance(
        of reference: String, id: String? = nil, inputs: [String: GraftValue] = [:],
        containerSize: ContainerSize = .unbounded, onEvent: @escaping @Sendable (EmittedEvent) -> Void = { _ in }
    ) throws(GraftError) -> ComponentInstance {
        try makeInstance(of: ComponentReference(parsing: reference), id: id, inputs: inputs, containerSize: containerSize, onEvent: onEvent)
    }

    /// Creates an instance of the component under `reference` with `inputs`.
    /// Inputs are checked against the contract first: a mistyped declared
    /// input is dropped (the component uses its default) and an undeclared one
    /// is forwarded, each with a warning on the instance. `onEvent` receives
    /// every event the instance emits, on the thread that emitted it; it must
    /// not call back into the same instance.
    public func makeInstance(
        of reference: ComponentReference, id: String? = nil, inputs: [String: GraftValue] = [:],
        containerSize: ContainerSize = .unbounded, onEvent: @escaping @Sendable (EmittedEvent) -> Void = { _ in }
    ) throws(GraftError) -> ComponentInstance {
        let component = try registry.resolve(reference)
        let number = tracker.nextNumber()
        let core = try InstanceCore(
            id: id ?? "\(reference.key)#\(number)", component: component, inputs: inputs, containerSize: containerSize,
            logger: logger, onEvent: onEvent, tracker: tracker)
        tracker.opened(core)
        if let ambiguous = ambiguity(of: reference, answeredBy: component, instanceID: core.id) { core.record(ambiguous) }
        return ComponentInstance(core)
    }

    /// `ambiguous_name` when `reference` is a bare name more than one plugin
    /// declares, naming who answered it and the qualified name of each; nil otherwise.
    package func ambiguity(
        of reference: ComponentReference, answeredBy component: RegisteredComponent, instanceID: String?
    ) -> GraftWarning? {
        guard reference.plugin == nil else { return nil }
        let others = table.otherProviders(ofComponent: component.reference, besides: component.plugin)
        guard !others.isEmpty else { return nil }
        let qualified = ([component.plugin.info.id] + others).map { "'\(component.reference.qualified(by: $0))'" }
        return GraftWarning(
            .ambiguousName,
            "'\(reference)' is declared by \(others.count + 1) plugins; '\(component.plugin.info.id)' answers it. Name one of \(qualified.joined(separator: ", ")), or choose with preferredPlugins (--prefer; for every command, graft config set prefer.NAME ID).",
            instanceID: instanceID)
    }

    /// How many instances are open (made and not yet closed).
    public var openInstanceCount: Int { tracker.count }
}
