import GraftHost

/// What a host registers, read once so one check sees one consistent state
/// even if plugins are swapped meanwhile.
struct RegistryView {
    let components: [ComponentReference: RegisteredComponent]
    let actions: [ComponentReference: RegisteredAction]
    let validators: [ComponentReference: ValidatorContract]

    init(host: GraftHost) {
        var components: [ComponentReference: RegisteredComponent] = [:]
        for component in host.registry.all { components[component.reference] = component }
        self.components = components
        var actions: [ComponentReference: RegisteredAction] = [:]
        for action in host.actions { actions[ComponentReference(key: action.contract.key, version: action.contract.version)] = action }
        self.actions = actions
        // From the plugins' declarations: checking a flow maps no plugin.
        var validators: [ComponentReference: ValidatorContract] = [:]
        for validator in host.plugins.flatMap(\.validators) {
            validators[ComponentReference(key: validator.name, version: validator.version)] = validator
        }
        self.validators = validators
    }

    /// The versions registered under a component key, sorted.
    func componentVersions(of key: String) -> [Int] {
        components.keys.filter { $0.key == key }.map(\.version).sorted()
    }

    func actionVersions(of key: String) -> [Int] {
        actions.keys.filter { $0.key == key }.map(\.version).sorted()
    }
}
