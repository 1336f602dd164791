import Foundation
import Logging
import Synchronization

/// The host: finds plugins on a search path, loads them, keeps their
/// components in a registry, and creates instances for flows.
///
///     let host = GraftHost(searchPath: .standard(explicit: ["plugins"]))
///     host.loadPlugins()
///     let picker = try host.makeInstance(of: ComponentReference(parsing: "date_picker@2"))
///     print(try picker.render().text)
///
/// A plugin that fails to load is recorded in `failures` with its error and
/// never stops the others.
public final class GraftHost: Sendable {
    /// This host's version, given to plugins at `init`.
    public static let version = "0.1.0"

    public let searchPath: SearchPath
    public let registry = ComponentRegistry()
    let validatorRegistry = ValidatorRegistry()
    let actionRegistry = ActionRegistry()
    private let loader: PluginLoader
    private let logger: Logger
    private let state = Mutex(State())
    private let instanceCounter = Atomic<Int>(0)

    struct State: Sendable {
        /// Loaded plugins by real path, in load order.
        var plugins: [String: LoadedPlugin] = [:]
        var order: [String] = []
        var failures: [PluginFailure] = []
    }

    public init(searchPath: SearchPath = .standard(), logger: Logger = Logger(label: "graft.host")) {
        self.searchPath = searchPath
        self.logger = logger
        var loaderLogger = logger
        loaderLogger[metadataKey: "subsystem"] = "loader"
        self.loader = PluginLoader(logger: loaderLogger)
        for warning in searchPath.warnings { logger.warning("\(warning)") }
    }

    // MARK: Loading

    /// Loads every plugin file on the search path. Failures are logged and
    /// kept in `failures`; the rest load regardless.
    public func loadPlugins() {
        for path in searchPath.pluginFiles() {
            do {
                try load(pluginAt: path)
            } catch {
                logger.error("\(error)", metadata: ["path": "\(path)"])
            }
        }
    }

    /// Loads one plugin file and registers everything it declares, or nothing.
    /// Loading a file that is already loaded returns it again. A failure is
    /// thrown and also recorded in `failures`.
    @discardableResult
    public func load(pluginAt path: String) throws(GraftError) -> PluginInfo {
        let real = (path as NSString).resolvingSymlinksInPath
        if let existing = state.withLock({ $0.plugins[real] }) { return existing.info }
        do throws(GraftError) {
            let plugin = try loader.load(path: path)
            do throws(GraftError) {
                try register(plugin, realPath: real)
            } catch {
                plugin.unload()
                throw error
            }
            logger.debug(
                "loaded \(plugin.info.id) \(plugin.info.version)",
                metadata: ["path": "\(path)", "components": "\(plugin.info.components.count)"])
            return plugin.info
        } catch {
            state.withLock { state in
                state.failures.removeAll { $0.path == path }
                state.failures.append(PluginFailure(path: path, error: error))
            }
            throw error
        }
    }

    /// Registers everything `plugin` declares, or nothing. With `overriding`,
    /// its components replace those already registered under the same
    /// key + version instead of being refused; the replaced ones are returned.
    @discardableResult
    func register(
        _ plugin: LoadedPlugin, realPath: String, overriding: Bool = false
    ) throws(GraftError) -> [RegisteredComponent] {
        // Loads are rare; one lock for the whole registration keeps the
        // duplicate checks and the publication consistent.
        let result: Result<[RegisteredComponent], GraftError> = state.withLock { state in
            if let other = state.plugins.values.first(where: { $0.info.id == plugin.info.id }) {
                return .failure(GraftError(
                    .duplicatePlugin,
                    "plugin '\(plugin.info.id)' at \(plugin.info.path) is already loaded from \(other.info.path); the first stays.",
                    path: plugin.info.path))
            }
            let replaced: [RegisteredComponent]
            do throws(GraftError) {
                try validatorRegistry.check(plugin)
                try actionRegistry.check(plugin)
                replaced = try registry.register(
                    plugin.info.components.map { RegisteredComponent(contract: $0, plugin: plugin) }, replacing: overriding)
            } catch {
                return .failure(error)
            }
            validatorRegistry.register(plugin)
            actionRegistry.register(plugin)
            state.plugins[realPath] = plugin
            state.order.append(realPath)
            state.failures.removeAll { $0.path == plugin.info.path }
            return .success(replaced)
        }
        return try result.get()
    }

    /// Forgets a plugin registered in-process: its components leave the
    /// registry unless something else has replaced them since.
    func forget(_ plugin: LoadedPlugin, realPath: String) {
        state.withLock { state in
            state.plugins[realPath] = nil
            state.order.removeAll { $0 == realPath }
        }
        for contract in plugin.info.components {
            registry.unregister(contract.reference, ifProvidedBy: plugin)
        }
    }

    /// Every loaded plugin, in load order.
    public var plugins: [PluginInfo] {
        state.withLock { state in state.order.compactMap { state.plugins[$0]?.info } }
    }

    /// Every plugin file that failed to load, with why.
    public var failures: [PluginFailure] { state.withLock { $0.failures } }

    // MARK: Components

    /// The component registered under `reference`; see `ComponentRegistry.resolve`.
    public func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredComponent {
        try registry.resolve(reference)
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
        let number = instanceCounter.wrappingAdd(1, ordering: .relaxed).newValue
        var instanceLogger = logger
        instanceLogger[metadataKey: "component"] = "\(component.reference)"
        return try ComponentInstance(
            id: id ?? "\(reference.key)#\(number)", component: component, inputs: inputs, containerSize: containerSize,
            logger: instanceLogger, onEvent: onEvent)
    }
}
