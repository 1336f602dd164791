import Synchronization

/// The host's state: its plugins and every name they hold (which plugin came
/// from which file, its components, validators and actions, who owns each
/// bare name, the files that failed), the runner children they run in, and
/// what a start's scanners said before each file's load takes it. All of it
/// changes here and nowhere else, under one lock, so the invariants (one
/// plugin per id, one per file, one owner per bare name, load order, one
/// shared runner, a removal pending only while one is recorded) are kept in
/// one place. `GraftHost` holds no other state of its own.
///
/// Names belong to plugins: every entry answers its qualified name
/// (`plugin.id/key@version`) whatever else is loaded. Two plugins may declare
/// the same key + version; the bare name goes to the plugin the host prefers
/// for it (`GraftConfiguration.preferredPlugins`), else to the first
/// registered, and every other declaration of it is reported as a clash of
/// that entry (`failures`), never a refusal of the rest of its plugin. When
/// the owner goes, the next provider takes the name.
///
/// Registering is a batch: one plugin is a batch of one, checked and
/// published at once, so loading N plugins costs N checks, not N copies of
/// the registries.
final class PluginTable: Sendable {
    let components = ComponentRegistry()
    let validators = ValidatorRegistry()
    let actions = ActionRegistry()
    private let state: Locked<State>
    /// Raised while a file removed in use waits for its plugin's last
    /// instance: read without the lock on every instance's close, raised and
    /// lowered only under it (`markRemovedInUse`, `removedInUse()`).
    private let removalsPendingFlag = Atomic<Bool>(false)
    /// Raised while some bare name has more than one provider: a host with
    /// no clash makes instances by bare name without taking the lock to ask
    /// who else declares it (`otherProviders`).
    private let namesShared = Atomic<Bool>(false)

    /// `preferred`: the plugin id that owns each bare name it declares
    /// (`iso_date@1` → `dev.graft.date-picker`), whatever the load order.
    init(preferred: [ComponentReference: String] = [:]) {
        var state = State()
        state.preferred = preferred
        self.state = Locked(state)
    }

    /// A plugin to register, with the real path it is known by and, for a
    /// file, the file's device and inode.
    struct Entry {
        let plugin: LoadedPlugin
        let realPath: String
        var file: FileKey?
        /// The identity of an isolated plugin's file when it was described, recorded with its registration.
        var identity: FileIdentity?
    }

    /// Bare names and who answers each, by kind, as the registries take them.
    struct Owners {
        var components: [(ComponentReference, LoadedPlugin?)] = []
        var validators: [(ComponentReference, LoadedPlugin?)] = []
        var actions: [(ComponentReference, LoadedPlugin?)] = []

        mutating func append(_ name: Name, ownedBy owner: LoadedPlugin?) {
            switch name.kind {
            case .component: components.append((name.reference, owner))
            case .validator: validators.append((name.reference, owner))
            case .action: actions.append((name.reference, owner))
            }
        }
    }

    /// A bare name of one kind.
    struct Name: Hashable {
        enum Kind: String { case component, validator, action }
        var kind: Kind
        var reference: ComponentReference

        /// Every bare name `info` declares (`declaredNameCount` of them).
        static func all(of info: PluginDescription) -> [Name] {
            // One array, sized once: every load lists its plugin's names.
            var names: [Name] = []
            names.reserveCapacity(info.declaredNameCount)
            for component in info.components { names.append(Name(kind: .component, reference: component.reference)) }
            for validator in info.validators { names.append(Name(kind: .validator, reference: validator.reference)) }
            for action in info.actions { names.append(Name(kind: .action, reference: action.reference)) }
            return names
        }
    }

    fileprivate struct State: Sendable {
        /// Loaded plugins by real path (`order` keeps their load order).
        var plugins: [String: LoadedPlugin] = [:]
        /// The real path of the loaded plugin with each id.
        var pathsByID: [String: String] = [:]
        /// The real path each loaded file goes by: one file, one plugin,
        /// however many links lead to it.
        var files: [FileKey: String] = [:]
        var order: [String] = []
        var failures: [PluginFailure] = []
        /// Running plugins' files (real paths) whose last new build was rejected.
        var rejectedBuilds: Set<String> = []
        /// The content hash of each loaded file, by real path.
        var hashes: [String: String] = [:]
        /// The identity each isolated plugin's file had when it was described, by real path.
        var identities: [String: FileIdentity] = [:]
        /// Files removed while instances still used their plugin.
        var removedInUse: Set<String> = []
        /// Every plugin declaring each bare name, in registration order.
        private(set) var providers: [Name: [LoadedPlugin]] = [:]
        /// How many names in `providers` have more than one.
        private(set) var sharedNames = 0
        /// The plugin id that owns a bare name when it declares it: the
        /// configuration's choice.
        var preferred: [ComponentReference: String] = [:]
        /// In-process overrides: the plugin id that owns a component's bare
        /// name while it is registered.
        var overrides: [ComponentReference: String] = [:]
        /// Every runner the host made, while it lives: `shutDown` ends their children.
        var runners: [Weak<PluginRunner>] = []
        /// The one runner child of a host with `.shared` isolation.
        var sharedRunner: PluginRunner?
        /// What the scanners said of files scanned together at the start of
        /// `loadPlugins`, until each file's own load takes it.
        var scanned: [FileIdentity: ScanOutcome] = [:]
        /// What was learnt of those files' signatures while they were scanned.
        var signatures: [FileIdentity: SignatureCheck.Evidence] = [:]

        /// Who answers a bare name: the override, the preferred plugin, or
        /// the first registered; nil when nobody declares it.
        func owner(of name: Name) -> LoadedPlugin? {
            guard let plugins = providers[name], let first = plugins.first else { return nil }
            guard plugins.count > 1 || !preferred.isEmpty || !overrides.isEmpty else { return first }
            let chosen = (name.kind == .component ? overrides[name.reference] : nil) ?? preferred[name.reference]
            return chosen.flatMap { id in plugins.first { $0.info.id == id } } ?? first
        }

        /// The owners of `names`, by kind, as the registries take them.
        func owners(of names: some Sequence<Name>) -> Owners {
            var owners = Owners()
            for name in names { owners.append(name, ownedBy: owner(of: name)) }
            return owners
        }

        /// Records that `plugin` declares `name`; returns its owner now.
        mutating func add(_ plugin: LoadedPlugin, as name: Name) -> LoadedPlugin? {
            // Appended in place: one lookup of the name, and no copy of its list.
            let count = providers[name, default: []].appendCounting(plugin)
            if count == 2 { sharedNames += 1 }
            // Alone, and nobody chosen for it: the usual case needs no lookups.
            if count == 1 && preferred.isEmpty && overrides.isEmpty { return plugin }
            return owner(of: name)
        }

        /// Room for `count` more plugins and their names.
        mutating func reserve(_ count: Int, names: Int) {
            plugins.reserveCapacity(plugins.count + count)
            pathsByID.reserveCapacity(pathsByID.count + count)
            files.reserveCapacity(files.count + count)
            providers.reserveCapacity(providers.count + names)
        }

        /// Sets who declares `name` (none: nobody).
        mutating func setProviders(_ plugins: [LoadedPlugin], of name: Name) {
            let wasShared = (providers[name]?.count ?? 0) > 1
            providers[name] = plugins.isEmpty ? nil : plugins
            sharedNames += (plugins.count > 1 ? 1 : 0) - (wasShared ? 1 : 0)
        }

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
            rejectedBuilds.remove(realPath)
            return plugin
        }
    }

    // MARK: Registering

    /// Registers each entry of `batch` with everything it declares; returns
    /// the refused ones with why (an id already loaded, a native signature
    /// libffi cannot call). With `overriding`, an entry's components own
    /// their bare names while it is registered (an in-process test double).
    func register(_ batch: [Entry], overriding: Bool = false) -> [(path: String, error: GraftError)] {
        state.withLock { state in
            let (accepted, refused) = check(batch, against: state)
            // Sized once for a batch; one plugin grows the tables as inserts do (reserving
            // calls the dictionaries' generic code, a tenth of what registering one costs).
            if accepted.count > 1 { state.reserve(accepted.count, names: accepted.reduce(0) { $0 + $1.entry.plugin.info.declaredNameCount }) }
            var owners = Owners()
            for (entry, _) in accepted {
                let plugin = entry.plugin
                for name in Name.all(of: plugin.info) {
                    if overriding && name.kind == .component { state.overrides[name.reference] = plugin.info.id }
                    owners.append(name, ownedBy: state.add(plugin, as: name))
                }
            }
            // Before the registries publish: whoever sees a clashing name there sees the flag raised.
            namesShared.store(state.sharedNames > 0, ordering: .relaxed)
            publish(accepted.map(\.entry.plugin), prepared: accepted.map(\.prepared), owners: owners)
            for (entry, _) in accepted {
                state.insert(entry)
                state.order.append(entry.realPath)
                if let identity = entry.identity { state.identities[entry.realPath] = identity }
            }
            if !state.failures.isEmpty {
                let paths = Set(accepted.map(\.entry.plugin.info.path))
                state.failures.removeAll { paths.contains($0.path) }
            }
            return refused
        }
    }

    /// The entries of `batch` that can register, prepared, and the refused
    /// ones with why.
    private func check(
        _ batch: [Entry], against state: State
    ) -> (accepted: [(entry: Entry, prepared: ValidatorRegistry.Prepared)], refused: [(path: String, error: GraftError)]) {
        var ids: [String: String] = [:]
        var accepted: [(entry: Entry, prepared: ValidatorRegistry.Prepared)] = []
        var refused: [(path: String, error: GraftError)] = []
        for entry in batch {
            let info = entry.plugin.info
            do throws(GraftError) {
                if let other = ids[info.id] ?? state.pathsByID[info.id].flatMap({ state.plugins[$0]?.info.path }) {
                    throw Self.duplicateID(info, loadedFrom: other, consequence: "the first stays")
                }
                let prepared = try validators.prepare(entry.plugin)
                ids[info.id] = info.path
                accepted.append((entry, prepared))
            } catch {
                refused.append((info.path, error))
            }
        }
        return (accepted, refused)
    }

    private static func duplicateID(_ info: PluginDescription, loadedFrom other: String, consequence: String) -> GraftError {
        GraftError(
            .duplicatePlugin, "plugin '\(info.id)' at \(info.path) is already loaded from \(other); \(consequence).", path: info.path)
    }

    /// Publishes to the three registries in one step each: `plugins` added,
    /// `old` removed, the bare names in `owners` given to their owners.
    private func publish(
        _ plugins: [LoadedPlugin], prepared: [ValidatorRegistry.Prepared], removing old: LoadedPlugin? = nil,
        owners: Owners
    ) {
        components.publish(adding: plugins, removing: old, owners: owners.components)
        validators.publish(Array(zip(plugins, prepared)), removing: old, owners: owners.validators)
        actions.publish(plugins, removing: old, owners: owners.actions)
    }

    /// Registers one plugin: a batch of one, its refusal thrown.
    func register(_ entry: Entry, overriding: Bool = false) throws(GraftError) {
        if let (_, error) = register([entry], overriding: overriding).first { throw error }
    }

    /// Publishes a new build in place of `old`: it keeps `old`'s place among
    /// the providers of every name both declare. Every lookup on any thread
    /// sees the old build or the new one, never neither.
    func replace(_ old: LoadedPlugin, with entry: Entry, hash: String) throws(GraftError) {
        let plugin = entry.plugin
        let result: Result<Void, GraftError> = state.withLock { state in
            let prepared: ValidatorRegistry.Prepared
            do throws(GraftError) {
                if let other = state.pathsByID[plugin.info.id], other != entry.realPath, let holder = state.plugins[other] {
                    throw Self.duplicateID(plugin.info, loadedFrom: holder.info.path, consequence: "the running build stays")
                }
                prepared = try validators.prepare(plugin)
            } catch {
                return .failure(error)
            }
            let before = Set(Name.all(of: old.info)), after = Set(Name.all(of: plugin.info))
            for name in before.union(after) {
                var providers = state.providers[name] ?? []
                if let index = providers.firstIndex(where: { $0 === old }) {
                    if after.contains(name) { providers[index] = plugin } else { providers.remove(at: index) }
                } else {
                    providers.append(plugin)
                }
                state.setProviders(providers, of: name)
            }
            namesShared.store(state.sharedNames > 0, ordering: .relaxed)
            publish([plugin], prepared: [prepared], removing: old, owners: state.owners(of: before.union(after)))
            state.insert(entry)
            state.hashes[entry.realPath] = hash
            state.removedInUse.remove(entry.realPath)
            return .success(())
        }
        try result.get()
    }

    /// Unregisters the plugin at `realPath` and everything it provides (the
    /// next provider of each bare name it owned takes it); returns it, or
    /// nil when none is loaded from there.
    @discardableResult
    func forget(realPath: String) -> LoadedPlugin? {
        state.withLock { state in
            guard let plugin = state.remove(at: realPath) else { return nil }
            let names = Name.all(of: plugin.info)
            for name in names {
                state.setProviders((state.providers[name] ?? []).filter { $0 !== plugin }, of: name)
                if name.kind == .component, state.overrides[name.reference] == plugin.info.id { state.overrides[name.reference] = nil }
            }
            publish([], prepared: [], removing: plugin, owners: state.owners(of: names))
            namesShared.store(state.sharedNames > 0, ordering: .relaxed)
            return plugin
        }
    }

    /// Every validator's contract by each name that reaches it (qualified,
    /// and bare for its owner), from the declarations: nothing is mapped.
    func validatorContracts() -> [ComponentReference: ValidatorContract] {
        state.withLock { state in
            var contracts: [ComponentReference: ValidatorContract] = [:]
            for (name, plugins) in state.providers where name.kind == .validator {
                func contract(of plugin: LoadedPlugin) -> ValidatorContract? {
                    plugin.info.validators.first { $0.name == name.reference.key && $0.version == name.reference.version }
                }
                for plugin in plugins { contracts[name.reference.qualified(by: plugin.info.id)] = contract(of: plugin) }
                contracts[name.reference] = state.owner(of: name).flatMap(contract(of:))
            }
            return contracts
        }
    }

    /// Each bare name `plugin` declares and another plugin answers, as the
    /// clash it is.
    func clashes(of plugin: LoadedPlugin) -> [GraftError] {
        state.withLock { state in
            Name.all(of: plugin.info).compactMap { name in
                state.owner(of: name).flatMap { $0 === plugin ? nil : Self.clash(name, of: plugin, ownedBy: $0) }
            }
        }
    }

    private static func clash(_ name: Name, of plugin: LoadedPlugin, ownedBy owner: LoadedPlugin) -> GraftError {
        let code: GraftError.Code = switch name.kind {
        case .component: .duplicateComponent
        case .validator: .duplicateValidator
        case .action: .duplicateAction
        }
        let info = plugin.info
        return GraftError(
            code,
            "\(name.kind.rawValue) '\(name.reference)' of plugin '\(info.id)' (\(info.path)) is also declared by plugin '\(owner.info.id)' (\(owner.info.path)), which answers the bare name; '\(info.id)' answers it only as '\(name.reference.qualified(by: info.id))' (a host picks who answers a bare name with preferredPlugins; the command line with --prefer, or graft config set prefer.NAME ID for good).",
            path: info.path, key: name.reference.key)
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

    /// Every plugin in load order, each with whether its file was removed
    /// while instances still use it (it stays registered until they close).
    var loadedMarkingRemovals: [(plugin: LoadedPlugin, removed: Bool)] {
        state.withLock { state in
            state.order.compactMap { realPath in state.plugins[realPath].map { ($0, state.removedInUse.contains(realPath)) } }
        }
    }

    // MARK: Failures

    /// The files that failed, then every declaration that clashes with
    /// another plugin's (its plugin loaded; only the bare name is not its).
    var failures: [PluginFailure] {
        state.withLock { state in
            var clashes: [PluginFailure] = []
            for (name, plugins) in state.providers where plugins.count > 1 {
                guard let owner = state.owner(of: name) else { continue }
                for plugin in plugins where plugin !== owner {
                    clashes.append(PluginFailure(path: plugin.info.path, error: Self.clash(name, of: plugin, ownedBy: owner)))
                }
            }
            return state.failures + clashes.sorted { ($0.path, $0.error.message) < ($1.path, $1.error.message) }
        }
    }

    /// Records why the file at `path` failed, replacing what it failed with before.
    func recordFailure(_ error: GraftError, path: String) {
        state.withLock { state in
            state.failures.removeAll { $0.path == path }
            state.failures.append(PluginFailure(path: path, error: error))
        }
    }

    /// The ids of the other plugins that declare the component `reference`
    /// (bare, key and version), beside the one that answers its bare name;
    /// none when the answer was chosen (an in-process override, or the host's
    /// `preferred` plugin, answering): a choice made, not an accident.
    func otherProviders(ofComponent reference: ComponentReference, besides plugin: LoadedPlugin) -> [String] {
        guard namesShared.load(ordering: .relaxed) else { return [] }
        return state.withLock { state in
            guard (state.overrides[reference] ?? state.preferred[reference]) != plugin.info.id else { return [] }
            return (state.providers[Name(kind: .component, reference: reference)] ?? []).filter { $0 !== plugin }.map(\.info.id)
        }
    }

    /// Notes that the running plugin at `realPath` rejected its file's new build.
    func noteRejectedBuild(realPath: String) {
        state.withLock { _ = $0.rejectedBuilds.insert(realPath) }
    }

    /// Forgets a rejected build of `realPath`'s plugin; whether there was one.
    func clearRejectedBuild(realPath: String) -> Bool {
        state.withLock { $0.rejectedBuilds.remove(realPath) != nil }
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

    /// Whether a file removed while in use waits for its plugin's last instance.
    var removalsPending: Bool { removalsPendingFlag.load(ordering: .acquiring) }

    /// Marks the file at `realPath` as removed while instances use its
    /// plugin (`removalsPending` is raised under the same lock, so that
    /// `removedInUse()` cannot lower it in between).
    func markRemovedInUse(_ realPath: String) {
        state.withLock { state in
            state.removedInUse.insert(realPath)
            removalsPendingFlag.store(true, ordering: .releasing)
        }
    }

    /// The files removed while in use, not yet forgotten; when there are
    /// none, `removalsPending` is lowered under the same lock.
    func removedInUse() -> Set<String> {
        state.withLock { state in
            if state.removedInUse.isEmpty { removalsPendingFlag.store(false, ordering: .releasing) }
            return state.removedInUse
        }
    }

    // MARK: Runners

    /// The shared runner, made by `make` the first time.
    func sharedRunner(_ make: () -> PluginRunner) -> PluginRunner {
        state.withLock { state in
            if let shared = state.sharedRunner { return shared }
            let runner = make()
            state.sharedRunner = runner
            state.keep(runner)
            return runner
        }
    }

    /// Keeps `runner` among the host's runners, for `shutDown`.
    func keep(_ runner: PluginRunner) { state.withLock { $0.keep(runner) } }

    /// Every runner alive.
    var runners: [PluginRunner] { state.withLock { $0.runners.compactMap(\.value) } }

    // MARK: Scanned together

    /// Keeps what the scanners said of files scanned together, and what was
    /// learnt of their signatures meanwhile.
    func keepScans(_ outcomes: [FileIdentity: ScanOutcome], signatures: [FileIdentity: SignatureCheck.Evidence]) {
        state.withLock { state in
            state.scanned = outcomes
            state.signatures = signatures
        }
    }

    /// What the scanners said of `file`, taken: nil when it was not scanned together.
    func takeScan(of file: FileIdentity) -> ScanOutcome? { state.withLock { $0.scanned.removeValue(forKey: file) } }

    /// What was learnt of `file`'s signature while it was scanned, taken.
    func takeSignatureEvidence(of file: FileIdentity) -> SignatureCheck.Evidence? {
        state.withLock { $0.signatures.removeValue(forKey: file) }
    }

    /// Drops what no load took.
    func dropScans() {
        state.withLock { state in
            state.scanned = [:]
            state.signatures = [:]
        }
    }
}

extension PluginTable.State {
    mutating func keep(_ runner: PluginRunner) {
        // Gone runners go when the count reaches a power of two: a sweep per
        // runner made a host of N plugins cost N² at start.
        if runners.count >= 16, runners.count & (runners.count - 1) == 0 { runners.removeAll { $0.value == nil } }
        runners.append(Weak(runner))
    }
}

extension PluginDescription {
    /// How many bare names the plugin declares: components, validators and actions.
    var declaredNameCount: Int { components.count + validators.count + actions.count }
}

extension Array {
    /// Appends `element`; returns the new count.
    mutating func appendCounting(_ element: Element) -> Int {
        append(element)
        return count
    }
}
