import CGraft
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plugin that passed every check: its factories and contracts, and for a
/// plugin loaded from a file its handle and entry. Immutable after loading;
/// the C pointers stay valid until `unload`, which the host calls only when
/// nothing uses the plugin. An in-process plugin has no handle and no entry.
final class LoadedPlugin: @unchecked Sendable {
    let info: PluginInfo
    let componentFactory: UnsafePointer<graft_component_factory_t>?
    let validators: [ComponentReference: (contract: ValidatorContract, descriptor: UnsafePointer<graft_validator_descriptor_t>)]
    let actions: [ComponentReference: (contract: ActionContract, descriptor: UnsafePointer<graft_action_descriptor_t>)]
    private let handle: UnsafeMutableRawPointer?
    private let entry: UnsafePointer<graft_plugin_entry_t>?
    private let host: HostHandle?
    /// Set when the host that loaded the plugin goes away (at process exit,
    /// typically): the image then stays mapped, since a thread the plugin
    /// started may still run in it. Only a build replaced or removed while the
    /// host runs is closed.
    let staysMapped = Atomic<Bool>(false)

    init(
        info: PluginInfo, handle: UnsafeMutableRawPointer?, entry: UnsafePointer<graft_plugin_entry_t>?, host: HostHandle?,
        componentFactory: UnsafePointer<graft_component_factory_t>?,
        validators: [(ValidatorContract, UnsafePointer<graft_validator_descriptor_t>)],
        actions: [(ActionContract, UnsafePointer<graft_action_descriptor_t>)]
    ) {
        self.info = info
        self.handle = handle
        self.entry = entry
        self.host = host
        self.componentFactory = componentFactory
        self.validators = Dictionary(
            validators.map { (ComponentReference(key: $0.0.name, version: $0.0.version), (contract: $0.0, descriptor: $0.1)) },
            uniquingKeysWith: { first, _ in first })
        self.actions = Dictionary(
            actions.map { (ComponentReference(key: $0.0.key, version: $0.0.version), (contract: $0.0, descriptor: $0.1)) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The last reference is gone: no registry lists the plugin and no
    /// instance, validator or action call uses it. Calls the plugin's `deinit`
    /// and closes the image when it contains no Swift.
    deinit {
        entry?.pointee.deinit?()
        if info.canUnload, !staysMapped.load(ordering: .relaxed), let handle { dlclose(handle) }
    }
}
