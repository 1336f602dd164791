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
    /// the first registration stays.
    func register(_ components: [RegisteredComponent]) throws(GraftError) {
        let result: Result<Void, GraftError> = current.withLock { snapshot in
            for component in components {
                if let existing = snapshot.components[component.reference] {
                    return .failure(GraftError(
                        .duplicateComponent,
                        "component '\(component.reference)' from \(component.pluginPath) is already registered by \(existing.pluginPath) (plugin '\(existing.pluginID)'); the first registration stays.",
                        path: component.pluginPath, key: component.contract.key))
                }
            }
            var next = snapshot
            for component in components { next.insert(component) }
            snapshot = next
            return .success(())
        }
        try result.get()
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
