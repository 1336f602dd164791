import Synchronization

/// Components by key + version. Reads far outnumber writes, so the registry
/// is an immutable snapshot replaced whole on every change: a reader takes
/// the current snapshot (one short lock to copy a reference) and then works
/// on it without locks, and a change is published in one step.
public final class ComponentRegistry: Sendable {
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

    private let current = Mutex(Snapshot())

    public init() {}

    var snapshot: Snapshot { current.withLock { $0 } }

    /// The component registered under `reference`. Version 1 also answers the
    /// bare key (a reference parsed from `key` has version 1). O(1).
    public func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredComponent {
        let snapshot = self.snapshot
        if let component = snapshot.components[reference] { return component }
        if let versions = snapshot.versions[reference.key], !versions.isEmpty {
            throw GraftError(
                .componentVersionMismatch,
                "component '\(reference.key)' has no version \(reference.version); registered versions: \(versions.map(String.init).joined(separator: ", ")).",
                key: reference.key)
        }
        throw GraftError(
            .customComponentNotFound, "no plugin registers component '\(reference)'.", key: reference.key)
    }

    public func resolve(key: String, version: Int = 1) throws(GraftError) -> RegisteredComponent {
        try resolve(ComponentReference(key: key, version: version))
    }

    /// Every registered component, sorted by key then version.
    public var all: [RegisteredComponent] {
        snapshot.components.values.sorted { ($0.contract.key, $0.contract.version) < ($1.contract.key, $1.contract.version) }
    }

    /// Registers all of `components` or none: a key + version already taken
    /// is refused with `duplicate_component` naming both plugin files, and
    /// the first registration stays. With `replacing`, taken ones are replaced
    /// instead and returned, so they can be put back.
    @discardableResult
    func register(_ components: [RegisteredComponent], replacing: Bool = false) throws(GraftError) -> [RegisteredComponent] {
        let result: Result<[RegisteredComponent], GraftError> = current.withLock { snapshot in
            var replaced: [RegisteredComponent] = []
            for component in components {
                if let existing = snapshot.components[component.reference] {
                    if replacing {
                        replaced.append(existing)
                        continue
                    }
                    return .failure(GraftError(
                        .duplicateComponent,
                        "component '\(component.reference)' from \(component.pluginPath) is already registered by \(existing.pluginPath) (plugin '\(existing.pluginID)'); the first registration stays.",
                        path: component.pluginPath, key: component.contract.key))
                }
            }
            var next = snapshot
            for component in replaced { _ = next.remove(component.reference) }
            for component in components { next.insert(component) }
            snapshot = next
            return .success(replaced)
        }
        return try result.get()
    }

    /// Puts `component` back under its key + version, replacing whatever is there.
    func restore(_ component: RegisteredComponent) {
        current.withLock { snapshot in
            _ = snapshot.remove(component.reference)
            snapshot.insert(component)
        }
    }

    /// Removes the component under `reference` only if `plugin` provides it.
    @discardableResult
    func unregister(_ reference: ComponentReference, ifProvidedBy plugin: LoadedPlugin) -> RegisteredComponent? {
        current.withLock { snapshot in
            guard snapshot.components[reference]?.plugin === plugin else { return nil }
            return snapshot.remove(reference)
        }
    }

    /// Removes and returns the component under `reference`, if any.
    @discardableResult
    public func unregister(_ reference: ComponentReference) -> RegisteredComponent? {
        current.withLock { snapshot in snapshot.remove(reference) }
    }

    @discardableResult
    public func unregister(key: String, version: Int = 1) -> RegisteredComponent? {
        unregister(ComponentReference(key: key, version: version))
    }
}
