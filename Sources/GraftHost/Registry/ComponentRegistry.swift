/// Components by key + version. Reads far outnumber writes, so the registry
/// is an immutable snapshot replaced whole on every change: a reader takes
/// the current snapshot (one short lock to copy a reference) and then works
/// on it without locks, and a change is published in one step.
final package class ComponentRegistry: Sendable {
    /// Immutable once published; the registry swaps in a new one on change.
    /// Every component is there under its qualified name, and under its
    /// bare name when its plugin owns that name.
    struct Snapshot: Sendable {
        var components: [ComponentReference: RegisteredComponent] = [:]
        /// Every version registered under each key, bare or qualified, sorted.
        var versions: [VersionKey: [Int]] = [:]

        /// A key, bare or qualified by a plugin id, without its version.
        struct VersionKey: Hashable {
            var key: String
            var plugin: String?

            init(_ reference: ComponentReference) {
                key = reference.key
                plugin = reference.plugin
            }

            var description: String { plugin.map { "\($0)/\(key)" } ?? key }
        }

        mutating func insert(_ component: RegisteredComponent, as reference: ComponentReference) {
            guard components.updateValue(component, forKey: reference) == nil else { return }
            // In place, in order: one lookup of the key, no copy of its list.
            func add(_ version: Int, to known: inout [Int]) { known.insert(version, at: known.firstIndex { $0 > version } ?? known.count) }
            add(reference.version, to: &versions[VersionKey(reference), default: []])
        }

        mutating func remove(_ reference: ComponentReference) -> RegisteredComponent? {
            guard let removed = components.removeValue(forKey: reference) else { return nil }
            let key = VersionKey(reference)
            versions[key]?.removeAll { $0 == reference.version }
            if versions[key]?.isEmpty == true { versions[key] = nil }
            return removed
        }
    }

    /// A box, so a reader copies one reference under the lock, not two dictionaries.
    final class Published: Sendable {
        let snapshot: Snapshot
        init(_ snapshot: Snapshot) { self.snapshot = snapshot }
    }

    private let current = Locked(Published(Snapshot()))

    package init() {}

    var snapshot: Snapshot { current.withLock { $0 }.snapshot }

    /// Every component by each name that reaches it: qualified, and bare for its owner.
    var byName: [ComponentReference: RegisteredComponent] { snapshot.components }

    /// Replaces the published snapshot with `change` applied to a copy.
    private func update<R>(_ change: (inout Snapshot) -> R) -> R {
        current.withLock { published in
            var next = published.snapshot
            let result = change(&next)
            published = Published(next)
            return result
        }
    }

    /// The component registered under `reference`. Version 1 also answers the
    /// bare key (a reference parsed from `key` has version 1). O(1).
    func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredComponent {
        let published = current.withLock { $0 }
        if let component = published.snapshot.components[reference] { return component }
        let versionKey = Snapshot.VersionKey(reference)
        if let versions = published.snapshot.versions[versionKey], !versions.isEmpty {
            throw GraftError(
                .componentVersionMismatch,
                "component '\(versionKey.description)' has no version \(reference.version); registered versions: \(versions.map(String.init).joined(separator: ", ")).",
                key: reference.key)
        }
        throw GraftError(
            .customComponentNotFound,
            "no plugin registers component '\(reference)'.\(NearMiss.hint(for: versionKey.description, among: published.snapshot.versions.keys.map(\.description)))",
            key: reference.key)
    }

    /// Every registered component (each once, whether or not it owns its
    /// bare name), sorted by key, version and plugin id.
    package var all: [RegisteredComponent] {
        snapshot.components.filter { $0.key.plugin != nil }.values.sorted {
            ($0.contract.key, $0.contract.version, $0.pluginID) < ($1.contract.key, $1.contract.version, $1.pluginID)
        }
    }

    /// One published step: the components of `plugins` under their
    /// qualified names, every name of `removing` gone, and each bare name in
    /// `owners` answered by its owner's component, or by none. A lookup on
    /// any thread sees the registry before or after, never between.
    func publish(adding plugins: [LoadedPlugin], removing old: LoadedPlugin? = nil, owners: [(ComponentReference, LoadedPlugin?)]) {
        update { snapshot in
            if let old {
                for (reference, existing) in snapshot.components where existing.plugin === old { _ = snapshot.remove(reference) }
            }
            // Sized once for a batch. One plugin's names go into the copy as
            // inserts grow it: reserving makes a copy that rehashes every name.
            if plugins.count > 1 {
                let count = plugins.reduce(0) { $0 + $1.info.components.count }
                snapshot.components.reserveCapacity(snapshot.components.count + 2 * count)
                snapshot.versions.reserveCapacity(snapshot.versions.count + 2 * count)
            }
            for plugin in plugins {
                for contract in plugin.info.components {
                    snapshot.insert(RegisteredComponent(contract: contract, plugin: plugin), as: contract.reference.qualified(by: plugin.info.id))
                }
            }
            for (name, owner) in owners {
                if let owner, let component = snapshot.components[name.qualified(by: owner.info.id)] {
                    snapshot.insert(component, as: name)
                } else {
                    _ = snapshot.remove(name)
                }
            }
        }
    }

    /// Puts `component` back under its bare name, replacing whatever is there.
    func restore(_ component: RegisteredComponent) {
        update { snapshot in
            _ = snapshot.remove(component.reference)
            snapshot.insert(component, as: component.reference)
        }
    }

    /// Removes and returns the component under `key` and `version`, if any.
    @discardableResult
    func unregister(key: String, version: Int = 1) -> RegisteredComponent? {
        update { snapshot in snapshot.remove(ComponentReference(key: key, version: version)) }
    }
}
