import GraftHost
@_spi(InProcess) import GraftKit
import Synchronization

/// Counts in-process registrations so each gets its own plugin id.
private let registrations = Atomic<Int>(0)

extension GraftHost {
    /// Registers an in-process Swift component, written with GraftKit's
    /// `CustomComponentDefinition`, under `key` + `version`. It goes through
    /// the same C tables and checks as a plugin's, so flows cannot tell the
    /// difference. A key + version already taken is refused with
    /// `duplicate_component`. Remove it with the returned registration.
    @discardableResult
    public func registerCustomComponent(
        key: String, version: Int = 1, definition: CustomComponentDefinition
    ) throws(GraftError) -> InProcessRegistration {
        try registerInProcess(key: key, version: version, definition: definition, overriding: false)
    }

    /// Replaces whatever provides `key` + `version` with `definition` (a test
    /// double) until the returned registration is removed, which puts the
    /// original back. Instances created before keep their original component.
    public func overrideCustomComponent(
        key: String, version: Int = 1, definition: CustomComponentDefinition
    ) throws(GraftError) -> InProcessRegistration {
        try registerInProcess(key: key, version: version, definition: definition, overriding: true)
    }

    /// Runs `body` with `definition` standing in for `key` + `version`, and
    /// restores the original afterwards, even when `body` throws.
    public func withCustomComponent<Result>(
        key: String, version: Int = 1, definition: CustomComponentDefinition, _ body: () throws -> Result
    ) throws -> Result {
        let registration = try overrideCustomComponent(key: key, version: version, definition: definition)
        defer { registration.remove() }
        return try body()
    }

    private func registerInProcess(
        key: String, version: Int, definition: CustomComponentDefinition, overriding: Bool
    ) throws(GraftError) -> InProcessRegistration {
        let number = registrations.wrappingAdd(1, ordering: .relaxed).newValue
        let id = "in-process.\(key).\(version).\(number)"
        let plugin = InProcessPlugin(info: PluginInfo(id: id, version: "0", name: "In-process \(key)@\(version)")) {
            $0.registerCustomComponent(key: key, version: version, definition: definition)
        }
        guard plugin.problems.isEmpty else {
            throw GraftError(
                .invalidDescriptor, "in-process component '\(key)@\(version)': \(plugin.problems.joined(separator: " "))",
                key: key)
        }
        return try registerInProcess(
            id: id, version: "0", name: "In-process \(key)@\(version)", componentFactory: plugin.componentFactory,
            validatorFactory: nil, actionFactory: nil, overriding: overriding)
    }
}
