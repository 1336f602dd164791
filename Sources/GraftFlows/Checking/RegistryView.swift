import GraftHost

/// What a host registers, read once so one check sees one consistent state
/// even if plugins are swapped meanwhile.
struct RegistryView {
    let components: [ComponentReference: RegisteredComponent]
    let actions: [ComponentReference: RegisteredAction]
    let validators: [ComponentReference: ValidatorContract]

    init(host: GraftHost) {
        // From the plugins' declarations: checking a flow maps no plugin.
        (components, actions, validators) = host.namedEntries
    }

    /// The versions registered under a component's key (qualified by the
    /// same plugin, if it is), sorted.
    func componentVersions(of reference: ComponentReference) -> [Int] {
        components.keys.filter { $0.key == reference.key && $0.plugin == reference.plugin }.map(\.version).sorted()
    }

    func actionVersions(of reference: ComponentReference) -> [Int] {
        actions.keys.filter { $0.key == reference.key && $0.plugin == reference.plugin }.map(\.version).sorted()
    }
}
