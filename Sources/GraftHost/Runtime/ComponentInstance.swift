import Synchronization

/// One live component created by a plugin. Calls into it are serialized (the
/// `[instance-serialized]` rule of graft.h); different instances may be used
/// from different threads at once. Events the component emits reach the
/// handler given at creation, with their drift warnings.
///
/// The plugin may run in this process or, for a host that isolates its
/// plugins, in a runner child: every method works the same either way. When
/// an isolated plugin's process dies, the call that killed it fails
/// (`plugin_crashed`, `plugin_timeout`); the next call re-creates the
/// instance in a new process from its last inputs, with a `plugin_restarted`
/// warning (its state is lost). Hot swap moves an instance to a new build of
/// its plugin: the same object, the same inputs, and the state when both
/// builds can carry it.
///
/// Letting go of the last reference closes the instance.
public final class ComponentInstance: Sendable {
    let core: InstanceCore

    init(_ core: InstanceCore) {
        self.core = core
    }

    deinit {
        core.close()
    }

    public var id: String { core.id }

    /// The component the instance is, and the plugin that provides it (a new
    /// build after a hot swap).
    public var component: RegisteredComponent { core.component }

    /// The inputs the instance was last given.
    public var inputs: [String: GraftValue] { core.inputs }

    /// Whether `close` has run.
    public var isClosed: Bool { core.isClosed }

    /// Contract drift recorded so far: unknown or mistyped inputs, undeclared
    /// events, payloads off their schema, and the plugin's own warnings.
    public var warnings: [GraftWarning] { core.warnings }

    /// Returns the warnings recorded so far and clears them.
    public func takeWarnings() -> [GraftWarning] { core.takeWarnings() }

    public var containerSize: ContainerSize {
        get { core.containerSize }
        set { core.containerSize = newValue }
    }

    /// Renders in `mediaType` (the component may answer in another type).
    public func render(as mediaType: MediaType = .plain) throws(GraftError) -> Rendering {
        try core.render(as: mediaType)
    }

    /// Simulates a user interaction (a tap, a selection) named `action`.
    /// Returns the plugin's answer: false when the component does not know
    /// the action or refused its data (or, for an isolated plugin, when the
    /// call failed). Why is in `warnings`: `unknown_interaction` for a name
    /// the component does not declare (even when the plugin answers it:
    /// drift is forwarded with a warning), `interaction_refused` for a
    /// declared one it answered false.
    @discardableResult
    public func interact(_ action: String, data: GraftValue? = nil) -> Bool {
        core.interact(action, data: data)
    }

    /// Replaces the inputs. When the component cannot take them in place it is
    /// recreated with them (its state is carried when it can save and load it).
    public func update(inputs: [String: GraftValue]) throws(GraftError) {
        try core.update(inputs: inputs)
    }

    /// Destroys the plugin's instance. Later calls fail with `instance_closed`;
    /// closing twice is harmless.
    public func close() {
        core.close()
    }

    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        try core.render(as: mediaType, outputLimit: outputLimit)
    }

    func saveState() -> [UInt8]? { core.saveState() }

    @discardableResult
    func loadState(_ state: [UInt8]) -> Bool { core.loadState(state) }
}

/// The open instances of one host, held by their cores until they close.
///
/// `@unchecked Sendable`: `host` is set once, in the host's init, before any
/// instance exists; everything else is behind the lock.
final class InstanceTracker: @unchecked Sendable {
    private let open = Locked<[ObjectIdentifier: InstanceCore]>([:])
    /// Numbers the instances made without an id of their own.
    private let made = Atomic<Int>(0)
    /// Told after a close while a removed plugin file waits for its last
    /// instance (the table's `removalsPending`).
    weak var host: GraftHost?
    private let table: PluginTable

    init(table: PluginTable) { self.table = table }

    func nextNumber() -> Int { made.wrappingAdd(1, ordering: .relaxed).newValue }

    func opened(_ core: InstanceCore) {
        open.withLock { $0[ObjectIdentifier(core)] = core }
    }

    func closed(_ core: InstanceCore) {
        open.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(core)) }
        if table.removalsPending { host?.finishRemovals() }
    }

    var cores: [InstanceCore] { open.withLock { Array($0.values) } }
    var count: Int { open.withLock { $0.count } }
}
