
/// Components by key + version. Reads far outnumber writes, so the registry
/// is an immutable snapshot replaced whole on every change: a reader takes
/// the current snapshot (one short lock to copy a reference) and then works
/// on it without locks, and a change is published in one step.
package final class ComponentRegistry: Sendable {
    /// Immutable once published; the registry swaps in a new one on change.
    struct Snapshot: Sendable {
        var components: [ComponentReference: RegisteredComponent] = [:]
        /// Every version registered under each key, sorted.
        var versions: [String: [Int]] = [:]

        mutating func insert(_ component: RegisteredComponent) {
            components[component.reference] = component
            versions[component.contract.key, default: []].append(component.contract.version)
            versions[component.contract.key]!.sort()
        }

        mutating func remove(_ reference: ComponentReference) -> RegisteredComponent? {
            guard let removed = components.removeValue(forKey: reference) else { return nil }
            versions[reference.key]?.removeAll { $0 == reference.version }
            if versions[reference.key]?.isEmpty == true { versions[reference.key] = nil }
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
    package func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredComponent {
        let published = current.withLock { $0 }
        if let component = published.snapshot.components[reference] { return component }
        if let versions = published.snapshot.versions[reference.key], !versions.isEmpty {
            throw GraftError(
                .componentVersionMismatch,
                "component '\(reference.key)' has no version \(reference.version); registered versions: \(versions.map(String.init).joined(separator: ", ")).",
                key: reference.key)
        }
        throw GraftError(
            .customComponentNotFound,
            "no plugin registers component '\(reference)'.\(NearMiss.hint(for: reference.key, among: published.snapshot.versions.keys))",
            key: reference.key)
    }

    package func resolve(key: String, version: Int = 1) throws(GraftError) -> RegisteredComponent {
        try resolve(ComponentReference(key: key, version: version))
    }

    /// Every registered component, sorted by key then version.
    package var all: [RegisteredComponent] {
        snapshot.components.values.sorted { ($0.contract.key, $0.contract.version) < ($1.contract.key, $1.contract.version) }
    }

    /// Publishes `components` in one step; the caller (`PluginTable`) has
    /// checked that no key + version is taken. With `replacing`, those that
    /// are taken are replaced and returned, so they can be put back.
    @discardableResult
    func register(_ components: [RegisteredComponent], replacing: Bool = false) -> [RegisteredComponent] {
        update { snapshot in
            let replaced = replacing ? components.compactMap { snapshot.remove($0.reference) } : []
            snapshot.components.reserveCapacity(snapshot.components.count + components.count)
            snapshot.versions.reserveCapacity(snapshot.versions.count + components.count)
            for component in components { snapshot.insert(component) }
            return replaced
        }
    }

    /// Replaces every component `old` provides with `components` (a new build
    /// of the same plugin) in one published step: a lookup on any thread sees
    /// the old build or the new one, never neither. The caller has checked
    /// that no other plugin holds their keys.
    func swap(replacing old: LoadedPlugin, with components: [RegisteredComponent]) {
        update { snapshot in
            for (reference, existing) in snapshot.components where existing.plugin === old {
                _ = snapshot.remove(reference)
            }
            for component in components { snapshot.insert(component) }
        }
    }

    /// Removes every component `plugin` provides.
    func removeAll(providedBy plugin: LoadedPlugin) {
        update { snapshot in
            for (reference, existing) in snapshot.components where existing.plugin === plugin {
                _ = snapshot.remove(reference)
            }
        }
    }

    /// Puts `component` back under its key + version, replacing whatever is there.
    func restore(_ component: RegisteredComponent) {
        update { snapshot in
            _ = snapshot.remove(component.reference)
            snapshot.insert(component)
        }
    }

    /// Removes the component under `reference` only if `plugin` provides it.
    @discardableResult
    func unregister(_ reference: ComponentReference, ifProvidedBy plugin: LoadedPlugin) -> RegisteredComponent? {
        update { snapshot in
            guard snapshot.components[reference]?.plugin === plugin else { return nil }
            return snapshot.remove(reference)
        }
    }

    /// Removes and returns the component under `reference`, if any.
    @discardableResult
    package func unregister(_ reference: ComponentReference) -> RegisteredComponent? {
        update { snapshot in snapshot.remove(reference) }
    }

    @discardableResult
    package func unregister(key: String, version: Int = 1) -> RegisteredComponent? {
        unregister(ComponentReference(key: key, version: version))
    }
}
