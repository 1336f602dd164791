import Synchronization

/// The host's plugins and every name they hold: which plugin came from which
/// file, its components, validators and actions, and the files that failed.
/// All of it changes here and nowhere else, under one lock, so the
/// invariants (one plugin per id, one per file, one holder per name, load
/// order) are kept in one place.
///
/// Registering is a batch: one plugin is a batch of one. Every entry is
/// checked by `Claims` against what is registered and what came before it in
/// the batch; what passes is published at once, so loading N plugins costs N
/// checks, not N copies of the registries.
final class PluginTable: Sendable {
    let components = ComponentRegistry()
    let validators = ValidatorRegistry()
    let actions = ActionRegistry()
    private let state = Locked(State())

    /// A plugin to register, with the real path it is known by and, for a
    /// file, the file's device and inode.
    struct Entry {
        let plugin: LoadedPlugin
        let realPath: String
        var file: FileKey?
    }

    private struct State: Sendable {
        /// Loaded plugins by real path (`order` keeps their load order).
        var plugins: [String: LoadedPlugin] = [:]
        /// The real path of the loaded plugin with each id.
        var pathsByID: [String: String] = [:]
        /// The real path each loaded file goes by: one file, one plugin,
        /// however many links lead to it.
        var files: [FileKey: String] = [:]
        var order: [String] = []
        var failures: [PluginFailure] = []
        /// The content hash of each loaded file, by real path.
        var hashes: [String: String] = [:]
        /// The identity each isolated plugin's file had when it was described, by real path.
        var identities: [String: FileIdentity] = [:]
        /// Files removed while instances still used their plugin.
        var removedInUse: Set<String> = []

        mutating func insert(_ entry: Entry) {
            let previous = plugins.updateValue(entry.plugin, forKey: entry.realPath)
            if let previous, pathsByID[previous.info.id] == entry.realPath { pathsByID[previous.info.id] = nil }
            pathsByID[entry.plugin.info.id] = entry.realPath
            guard let file = entry.file else { return }
            // A new build of a file goes by the new file's device and inode.
            if previous != nil { files = files.filter { $0.value != entry.realPath } }
            files[file] = entry.realPath
        }

        mutating func remove(at realPath: String) -> LoadedPlugin? {
            guard let plugin = plugins.removeValue(forKey: realPath) else { return nil }
            if pathsByID[plugin.info.id] == realPath { pathsByID[plugin.info.id] = nil }
            files = files.filter { $0.value != realPath }
            order.removeAll { $0 == realPath }
            hashes[realPath] = nil
            removedInUse.remove(realPath)
            return plugin
        }
    }

    // MARK: Registering

    /// Registers each entry of `batch` with everything it declares, or
    /// refuses it whole; returns the refused ones with why. With
    /// `overriding`, components replace those registered under the same
    /// key + version instead of being refused (the replaced are returned).
    func register(_ batch: [Entry], overriding: Bool = false) -> (replaced: [RegisteredComponent], refused: [(path: String, error: GraftError)]) {
        state.withLock { state in
            let (accepted, refused) = check(batch, against: state, overriding: overriding)
            // Every name was checked: publishing cannot fail.
            let replaced = components.register(
                accepted.flatMap { item in item.entry.plugin.info.components.map { RegisteredComponent(contract: $0, plugin: item.entry.plugin) } },
                replacing: overriding)
            validators.publish(accepted.map { ($0.entry.plugin, $0.prepared) })
            actions.publish(accepted.map(\.entry.plugin))
            state.plugins.reserveCapacity(state.plugins.count + accepted.count)
            state.pathsByID.reserveCapacity(state.pathsByID.count + accepted.count)
            state.files.reserveCapacity(state.files.count + accepted.count)
            for (entry, _) in accepted {
                state.insert(entry)
                state.order.append(entry.realPath)
            }
            if !state.failures.isEmpty {
                let paths = Set(accepted.map(\.entry.plugin.info.path))
                state.failures.removeAll { paths.contains($0.path) }
            }
            return (replaced, refused)
        }
    }

    /// The entries of `batch` that can register, prepared, and the refused
    /// ones with why. The claims end here, before anything is published:
    /// while they hold the state's and the registries' tables, changing
    /// those would copy them whole.
    private func check(
        _ batch: [Entry], against state: State, overriding: Bool
    ) -> (accepted: [(entry: Entry, prepared: ValidatorRegistry.Prepared)], refused: [(path: String, error: GraftError)]) {
        var claims = Claims(table: self, state: state, overriding: overriding, consequence: "the first stays")
        var accepted: [(entry: Entry, prepared: ValidatorRegistry.Prepared)] = []
        var refused: [(path: String, error: GraftError)] = []
        for entry in batch {
            do throws(GraftError) {
                let prepared = try validators.prepare(entry.plugin)
                try claims.claim(entry.plugin)
                accepted.append((entry, prepared))
            } catch {
                refused.append((entry.plugin.info.path, error))
            }
        }
        return (accepted, refused)
    }

    /// Registers one plugin: a batch of one, its refusal thrown.
    @discardableResult
    func register(_ entry: Entry, overriding: Bool = false) throws(GraftError) -> [RegisteredComponent] {
        let (replaced, refused) = register([entry], overriding: overriding)
        if let (_, error) = refused.first { throw error }
        return replaced
    }

    /// Publishes a new build in place of `old`, checked as a registration is
    /// (`old`'s own names are free to it): every lookup on any thread sees the
    /// old build or the new one, never neither.
    func replace(_ old: LoadedPlugin, with entry: Entry, hash: String) throws(GraftError) {
        let result: Result<Void, GraftError> = state.withLock { state in
            let prepared: ValidatorRegistry.Prepared
            do throws(GraftError) {
                prepared = try validators.prepare(entry.plugin)
                // The claims end before anything is published (see `check`).
                var claims = Claims(table: self, state: state, replacing: old, consequence: "the running build stays")
                try claims.claim(entry.plugin)
            } catch {
                return .failure(error)
            }
            components.swap(replacing: old, with: entry.plugin.info.components.map { RegisteredComponent(contract: $0, plugin: entry.plugin) })
            validators.publish([(entry.plugin, prepared)], replacing: old)
            actions.publish([entry.plugin], replacing: old)
            state.insert(entry)
            state.hashes[entry.realPath] = hash
            state.removedInUse.remove(entry.realPath)
            return .success(())
        }
        try result.get()
    }

    /// Unregisters the plugin at `realPath` and everything it provides;
    /// returns it, or nil when none is loaded from there.
    @discardableResult
    func forget(realPath: String) -> LoadedPlugin? {
        state.withLock { state in
            guard let plugin = state.remove(at: realPath) else { return nil }
            components.removeAll(providedBy: plugin)
            validators.removeAll(providedBy: plugin)
            actions.removeAll(providedBy: plugin)
            return plugin
        }
    }

    // MARK: Reading

    /// The plugin loaded from `realPath`.
    func plugin(at realPath: String) -> LoadedPlugin? { state.withLock { $0.plugins[realPath] } }

    /// The plugin loaded from the file with this device and inode, under any name.
    func plugin(loadedFrom file: FileKey) -> LoadedPlugin? {
        state.withLock { state in state.files[file].flatMap { state.plugins[$0] } }
    }

    func isLoaded(_ file: FileKey) -> Bool { state.withLock { $0.files[file] != nil } }

    /// Every loaded plugin, in load order.
    var loaded: [LoadedPlugin] { state.withLock { state in state.order.compactMap { state.plugins[$0] } } }

    // MARK: Failures

    var failures: [PluginFailure] { state.withLock { $0.failures } }

    /// Records why the file at `path` failed, replacing what it failed with before.
    func recordFailure(_ error: GraftError, path: String) {
        state.withLock { state in
            state.failures.removeAll { $0.path == path }
            state.failures.append(PluginFailure(path: path, error: error))
        }
    }

    /// Forgets the failure of `path`; whether there was one.
    func clearFailure(path: String) -> Bool {
        state.withLock { state in
            defer { state.failures.removeAll { $0.path == path } }
            return state.failures.contains { $0.path == path }
        }
    }

    // MARK: What the host knows of each file

    func hash(of realPath: String) -> String? { state.withLock { $0.hashes[realPath] } }

    func setHash(_ hash: String, of realPath: String) { state.withLock { $0.hashes[realPath] = hash } }

    /// The identity an isolated plugin's file had when it was last described.
    func identity(of realPath: String) -> FileIdentity? { state.withLock { $0.identities[realPath] } }

    /// Sets the identity of `realPath`; returns the one it replaces.
    @discardableResult
    func setIdentity(_ identity: FileIdentity?, of realPath: String) -> FileIdentity? {
        state.withLock { state in
            defer { state.identities[realPath] = identity }
            return state.identities[realPath]
        }
    }

    // MARK: Removal while in use

    /// Marks the file at `realPath` as removed while instances use its
    /// plugin; `flag` is raised under the same lock, so that `removedInUse`
    /// cannot lower it in between.
    func markRemovedInUse(_ realPath: String, raising flag: borrowing Atomic<Bool>) {
        state.withLock { state in
            state.removedInUse.insert(realPath)
            flag.store(true, ordering: .releasing)
        }
    }

    /// The files removed while in use, not yet forgotten; when there are
    /// none, `flag` is lowered under the same lock.
    func removedInUse(lowering flag: borrowing Atomic<Bool>) -> Set<String> {
        state.withLock { state in
            if state.removedInUse.isEmpty { flag.store(false, ordering: .releasing) }
            return state.removedInUse
        }
    }
}

extension PluginTable {
    /// Who holds each name a batch is checked against: the registries as
    /// they are, then what earlier entries of the batch claimed. The one
    /// place the duplicate rules and their wording live.
    private struct Claims {
        /// The build being replaced: its names are free to its successor.
        let replacing: LoadedPlugin?
        /// Whether components may replace those registered under their key + version.
        let overriding: Bool
        /// What happens to the entry that loses, for the message.
        let consequence: String
        private let pathsByID: [String: String]
        private let plugins: [String: LoadedPlugin]
        private let components: [ComponentReference: RegisteredComponent]
        private let validators: ValidatorRegistry.Holders
        private let actions: [ComponentReference: RegisteredAction]
        private typealias Holder = (path: String, id: String)
        private var claimedIDs: [String: Holder] = [:]
        private var claimed: [Kind: [ComponentReference: Holder]] = [:]

        private enum Kind: String {
            case component, validator, action

            var duplicateCode: GraftError.Code {
                switch self {
                case .component: .duplicateComponent
                case .validator: .duplicateValidator
                case .action: .duplicateAction
                }
            }
        }

        init(table: PluginTable, state: State, replacing: LoadedPlugin? = nil, overriding: Bool = false, consequence: String) {
            self.replacing = replacing
            self.overriding = overriding
            self.consequence = consequence
            pathsByID = state.pathsByID
            plugins = state.plugins
            components = table.components.snapshot.components
            validators = table.validators.holders
            actions = table.actions.current
        }

        /// Claims every name `plugin` declares, or throws for the first one
        /// another plugin holds (a duplicate code naming both files).
        mutating func claim(_ plugin: LoadedPlugin) throws(GraftError) {
            let info = plugin.info
            let loaded = pathsByID[info.id].flatMap { plugins[$0] }
            if let holder = claimedIDs[info.id] ?? holder(loaded) {
                throw GraftError(
                    .duplicatePlugin, "plugin '\(info.id)' at \(info.path) is already loaded from \(holder.path); \(consequence).",
                    path: info.path)
            }
            let names: [(Kind, [ComponentReference])] = [
                (.component, overriding ? [] : info.components.map(\.reference)),
                (.validator, info.validators.map { ComponentReference(key: $0.name, version: $0.version) }),
                (.action, info.actions.map { ComponentReference(key: $0.key, version: $0.version) }),
            ]
            for (kind, references) in names {
                for reference in references {
                    guard let taken = claimed[kind]?[reference] ?? holder(registered(kind, reference)) else { continue }
                    throw GraftError(
                        kind.duplicateCode,
                        "\(kind.rawValue) '\(reference)' from \(info.path) is already registered by \(taken.path) (plugin '\(taken.id)'); \(consequence).",
                        path: info.path, key: reference.key)
                }
            }
            let mine: Holder = (info.path, info.id)
            claimedIDs[info.id] = mine
            for (kind, references) in names where !references.isEmpty {
                for reference in references { claimed[kind, default: [:]][reference] = mine }
            }
        }

        private func registered(_ kind: Kind, _ reference: ComponentReference) -> LoadedPlugin? {
            switch kind {
            case .component: components[reference]?.plugin
            case .validator: validators[reference]
            case .action: actions[reference]?.plugin
            }
        }

        /// `plugin` as the holder of a name, unless it is the build being replaced.
        private func holder(_ plugin: LoadedPlugin?) -> Holder? {
            guard let plugin, plugin !== replacing else { return nil }
            return (plugin.info.path, plugin.info.id)
        }
    }
}
