import CGraft
import FoundationEssentials
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plugin that passed every check: what it declares, and its mapped image.
///
/// A plugin described by the scanner or the registry cache is registered
/// before its image is mapped into this process: its contracts answer
/// listings, the flow checker and lookups, and the image is mapped the first
/// time a component, validator or action of it is used (`mapped()`). A
/// plugin loaded directly (or in-process) has its image from the start.
/// The C pointers stay valid until deinit, which runs only when nothing uses
/// the plugin any more.
package final class LoadedPlugin: @unchecked Sendable {
    package let info: PluginDescription
    /// The SHA-256 of the sealed copy that was checked, for a host that
    /// loads from copies: a later copy for its first mapping must match it.
    let checkedHash: String?
    /// Set when the host that loaded the plugin goes away (at process exit,
    /// typically): the image then stays mapped, since a thread the plugin
    /// started may still run in it. Only a build replaced or removed while the
    /// host runs is closed.
    let staysMapped = Atomic<Bool>(false)

    /// The mapped image: the handle, the entry and the factories' descriptors.
    package struct Image {
        package let handle: UnsafeMutableRawPointer?
        package let entry: UnsafePointer<graft_plugin_entry_t>?
        package let host: HostHandle?
        package let componentFactory: UnsafePointer<graft_component_factory_t>?
        let validators: [ComponentReference: (contract: ValidatorContract, descriptor: UnsafePointer<graft_validator_descriptor_t>)]
        let actions: [ComponentReference: (contract: ActionContract, descriptor: UnsafePointer<graft_action_descriptor_t>)]

        package init(
            handle: UnsafeMutableRawPointer?, entry: UnsafePointer<graft_plugin_entry_t>?, host: HostHandle?,
            componentFactory: UnsafePointer<graft_component_factory_t>?,
            validators: [(ValidatorContract, UnsafePointer<graft_validator_descriptor_t>)],
            actions: [(ActionContract, UnsafePointer<graft_action_descriptor_t>)]
        ) {
            self.handle = handle
            self.entry = entry
            self.host = host
            self.componentFactory = componentFactory
            self.validators = Dictionary(
                validators.map { ($0.0.reference, (contract: $0.0, descriptor: $0.1)) },
                uniquingKeysWith: { first, _ in first })
            self.actions = Dictionary(
                actions.map { ($0.0.reference, (contract: $0.0, descriptor: $0.1)) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    typealias Mapper = @Sendable (LoadedPlugin) throws(GraftError) -> Image

    // Safe publication: `image` is written once, under `lock`, before
    // `isMapped` is stored with release ordering; readers load `isMapped`
    // with acquire ordering before reading `image`. The fast path takes no lock.
    nonisolated(unsafe) private var image: Image?
    private let isMappedFlag = Atomic<Bool>(false)
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var mapper: Mapper?
    nonisolated(unsafe) private var failure: GraftError?

    /// The child process that runs the plugin, for a host that isolates its
    /// plugins; nil when the plugin runs in this process.
    let runner: PluginRunner?
    /// The runtime that contains the plugin's code in this process (a
    /// WebAssembly instance); nil for a mapped image or a runner child.
    let guest: (any PluginGuest)?
    /// Its calls' metrics and spans; nil when the app bootstrapped no backend.
    let telemetry: PluginTelemetry?

    /// A plugin whose image is already mapped.
    package convenience init(info: PluginDescription, image: Image) {
        self.init(info: info, image: image, guest: nil)
    }

    /// A plugin whose code runs in `guest`; `image` then holds no pointer.
    init(info: PluginDescription, image: Image, guest: (any PluginGuest)?) {
        self.info = info
        self.runner = nil
        self.guest = guest
        checkedHash = nil
        telemetry = PluginTelemetry.make(pluginID: info.id)
        self.image = image
        isMappedFlag.store(true, ordering: .releasing)
    }

    /// A plugin known from its description: one that runs in `runner`'s
    /// child process (never mapped here), or that `mapper` maps on first use.
    init(
        described info: PluginDescription, runner: PluginRunner? = nil, checkedHash: String? = nil,
        telemetry backends: PluginTelemetry.Backends = .current, mapper: Mapper? = nil
    ) {
        self.info = info
        self.runner = runner
        self.guest = nil
        self.mapper = mapper
        self.checkedHash = checkedHash
        telemetry = PluginTelemetry.make(pluginID: info.id, backends: backends)
    }

    var isMapped: Bool { isMappedFlag.load(ordering: .acquiring) }

    /// Whether its calls go somewhere other than C pointers in a mapped
    /// image: its runner child, or its guest runtime.
    var callsElsewhere: Bool { runner != nil || guest != nil }

    /// The image, mapped now if it was not yet. A failure to map is kept:
    /// every later use gets the same error without trying again.
    package func mapped() throws(GraftError) -> Image {
        if isMappedFlag.load(ordering: .acquiring), let image { return image }
        return try mapSlowly()
    }

    @inline(never)
    private func mapSlowly() throws(GraftError) -> Image {
        lock.lock()
        defer { lock.unlock() }
        if let image { return image }
        if let failure { throw failure }
        guard let mapper else {
            throw GraftError(
                .pluginNotFound,
                "\(info.path) has no image in this process\(runner == nil ? "" : ": it runs in a child process").", path: info.path)
        }
        do throws(GraftError) {
            let mapped = try mapper(self)
            image = mapped
            self.mapper = nil
            isMappedFlag.store(true, ordering: .releasing)
            return mapped
        } catch {
            failure = error
            throw error
        }
    }

    /// Moves the image out of a plugin loaded only to be mapped for another
    /// (see `GraftHost.map`): this one then closes nothing at deinit.
    func takeImage() -> Image {
        let taken = image!
        image = nil
        isMappedFlag.store(false, ordering: .releasing)
        return taken
    }

    /// The last reference is gone: no registry lists the plugin and no
    /// instance, validator or action call uses it. Calls the plugin's `deinit`
    /// and closes the image when it contains no Swift.
    deinit {
        guard let image else { return }
        image.entry?.pointee.deinit?()
        if info.canUnload, !staysMapped.load(ordering: .relaxed), let handle = image.handle { dlclose(handle) }
    }
}

extension LoadedPlugin {
    /// The CPU time where this plugin's code runs: its runner child's (the
    /// process and those below it), else this thread's. Read before and
    /// after a call, the difference is the call's CPU time.
    var cpuTime: Duration? {
        if let runner { return runner.childPID.map { IdleCPUWatch.cpuTime(ofTree: $0) } }
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
