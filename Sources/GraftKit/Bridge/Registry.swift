import CGraft

/// What one plugin registered, sorted (components by key then version,
/// validators by name then version, actions by key then version), checked,
/// and bridged to graft.h's factories.
///
/// Built once per image. When the registration has problems, no C table is
/// built: every factory is NULL and `init` refuses the plugin.
final class Registry: @unchecked Sendable {
    // Safe to share: every stored property is immutable after `init`, and the
    // C memory the pointers reach is written once here and never again.
    let components: [RegisteredComponent]
    let validators: [RegisteredValidator]
    let actions: [RegisteredAction]
    let problems: [String]
    let info: PluginInfo
    /// Where GraftKit's own log lines go: the host of the image, or nowhere.
    let host: HostConnection
    let componentDescriptors: UnsafePointer<graft_component_descriptor_t>?
    let validatorDescriptors: UnsafePointer<graft_validator_descriptor_t>?
    let actionDescriptors: UnsafePointer<graft_action_descriptor_t>?
    let componentFactory: UnsafePointer<graft_component_factory_t>?
    let validatorFactory: UnsafePointer<graft_validator_factory_t>?
    let actionFactory: UnsafePointer<graft_action_factory_t>?
    /// The declared permissions as graft.h lays them out, and their table (nil when none).
    let permissionEntries: UnsafePointer<graft_permission_t>?
    let permissionsTable: UnsafePointer<graft_permissions_t>?
    /// Every component's stories as graft.h lays them out, in component order, and their table (nil when none).
    let storyEntries: UnsafePointer<graft_story_t>?
    let storyCount: Int
    let storiesTable: UnsafePointer<graft_stories_t>?
    private let componentIndex: [String: Int]

    init(info: PluginInfo, registration: PluginRegistration, host: HostConnection) {
        self.info = info
        self.host = host
        components = registration.components.sorted { ($0.key, $0.version) < ($1.key, $1.version) }
        validators = registration.validators.sorted { ($0.name, $0.version) < ($1.name, $1.version) }
        actions = registration.actions.sorted { ($0.key, $0.version) < ($1.key, $1.version) }
        problems = RegistrationCheck.problems(info: info, registration: registration)
        componentIndex = Dictionary(
            components.enumerated().map { (Self.indexKey($1.key, $1.version), $0) },
            uniquingKeysWith: { first, _ in first })

        let valid = problems.isEmpty
        componentDescriptors = valid ? DescriptorTables.components(components) : nil
        validatorDescriptors = valid ? DescriptorTables.validators(validators) : nil
        actionDescriptors = valid ? DescriptorTables.actions(actions) : nil
        componentFactory = componentDescriptors.map { _ in
            PermanentMemory.single(ComponentFactoryFunctions.factory())
        }
        validatorFactory = validatorDescriptors.map { _ in
            PermanentMemory.single(graft_validator_factory_t(
                count: { factory in UInt32(DescriptorOwners.owner(ofFactory: factory)?.validators.count ?? 0) },
                get_descriptor: { factory, index in
                    guard let registry = DescriptorOwners.owner(ofFactory: factory),
                          Int(index) < registry.validators.count else { return nil }
                    return registry.validatorDescriptors.map { $0 + Int(index) }
                }))
        }
        actionFactory = actionDescriptors.map { _ in
            PermanentMemory.single(graft_action_factory_t(
                count: { factory in UInt32(DescriptorOwners.owner(ofFactory: factory)?.actions.count ?? 0) },
                get_descriptor: { factory, index in
                    guard let registry = DescriptorOwners.owner(ofFactory: factory),
                          Int(index) < registry.actions.count else { return nil }
                    return registry.actionDescriptors.map { $0 + Int(index) }
                }))
        }
        permissionEntries = valid ? PermanentMemory.array(info.permissions.map(Self.entry)) : nil
        permissionsTable = permissionEntries.map { _ in
            PermanentMemory.single(graft_permissions_t(
                count: { table in UInt32(DescriptorOwners.owner(ofFactory: table)?.info.permissions.count ?? 0) },
                get: { table, index in
                    guard let registry = DescriptorOwners.owner(ofFactory: table),
                          Int(index) < registry.info.permissions.count else { return nil }
                    return registry.permissionEntries.map { $0 + Int(index) }
                }))
        }
        let stories = valid ? DescriptorTables.stories(components) : []
        storyCount = stories.count
        storyEntries = PermanentMemory.array(stories)
        storiesTable = storyEntries.map { _ in
            PermanentMemory.single(graft_stories_t(
                count: { table in UInt32(DescriptorOwners.owner(ofFactory: table)?.storyCount ?? 0) },
                get: { table, index in
                    guard let registry = DescriptorOwners.owner(ofFactory: table), Int(index) < registry.storyCount else { return nil }
                    return registry.storyEntries.map { $0 + Int(index) }
                }))
        }
        for factory in [componentFactory.map(UnsafeRawPointer.init), validatorFactory.map(UnsafeRawPointer.init),
                        actionFactory.map(UnsafeRawPointer.init), permissionsTable.map(UnsafeRawPointer.init),
                        storiesTable.map(UnsafeRawPointer.init)].compactMap({ $0 }) {
            DescriptorOwners.record(factory: factory, registry: self)
        }
        if let table = validatorDescriptors { DescriptorOwners.record(table, count: validators.count, registry: self) }
        if let table = actionDescriptors { DescriptorOwners.record(table, count: actions.count, registry: self) }
    }

    func component(key: String, version: Int) -> RegisteredComponent? {
        componentIndex[Self.indexKey(key, version)].map { components[$0] }
    }

    /// The factory for a `GRAFT_*_FACTORY_ID`, or nil.
    func factory(id: String) -> UnsafeRawPointer? {
        switch id {
        case FactoryID.component: componentFactory.map(UnsafeRawPointer.init)
        case FactoryID.validator: validatorFactory.map(UnsafeRawPointer.init)
        case FactoryID.action: actionFactory.map(UnsafeRawPointer.init)
        case FactoryID.permissions: permissionsTable.map(UnsafeRawPointer.init)
        case FactoryID.stories: storiesTable.map(UnsafeRawPointer.init)
        default: nil
        }
    }

    /// One permission as graft.h lays it out, in memory that is never freed.
    private static func entry(_ permission: PluginPermission) -> graft_permission_t {
        var entry = graft_permission_t()
        entry.reason = PermanentMemory.string(permission.reason)
        switch permission.kind {
        case .connect(let ports):
            entry.kind = UInt32(GRAFT_PERMISSION_CONNECT)
            entry.ports = PermanentMemory.array(ports)
            entry.port_count = UInt32(ports.count)
        case .anyNetwork:
            entry.kind = UInt32(GRAFT_PERMISSION_NETWORK)
        case .read(let folder):
            entry.kind = UInt32(GRAFT_PERMISSION_READ)
            entry.path = PermanentMemory.string(folder)
        case .dataFolder:
            entry.kind = UInt32(GRAFT_PERMISSION_DATA)
        }
        return entry
    }

    private static func indexKey(_ key: String, _ version: Int) -> String {
        "\(key)@\(version)"
    }
}
