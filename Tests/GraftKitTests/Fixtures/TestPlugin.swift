import GraftKit

/// The plugin the tests walk through graft.h exactly as a host would.
/// Registered out of order on purpose: descriptors must come out sorted.
enum TestPlugin: GraftPlugin {
    static let info = PluginInfo(
        id: "dev.graft.kit-test", version: "0.0.1", name: "GraftKit test plugin",
        vendor: "Graft tests",
        permissions: [
            .networkConnections(ports: [443, 8443], reason: "Fetches the forecast."),
            .readFolder("/srv/assets", reason: "Shows the pictures in it."),
            .dataFolder(reason: "Keeps the last forecast."),
        ])

    static func register(in plugin: PluginRegistration) {
        plugin.registerCustomComponent(key: "minimal", version: 1, definition: CustomComponentDefinition(
            factory: { _, _ in Minimal() }))
        plugin.registerCustomComponent(key: "greeting", version: 2, definition: Greeting.definition(version: 2))
        plugin.registerCustomComponent(key: "refusing", version: 1, definition: CustomComponentDefinition(
            inputs: ["name": .string], factory: { _, _ in nil }))
        plugin.registerCustomComponent(key: "greeting", version: 1, definition: Greeting.definition(version: 1))

        plugin.registerValidator(name: "min_length", params: ["min", "unit"], message: "is too short") { value, params in
            guard let text = value.stringValue else { return .invalid(nil) }
            let minimum = params.first.flatMap { Int($0) } ?? 0
            return text.count >= minimum ? .valid : .invalid("is shorter than \(minimum) \(params.dropFirst().first ?? "")")
        }
        plugin.registerValidator(name: "always_invalid", version: 3) { _, _ in .invalid(nil) }

        plugin.registerAction(key: "concat", params: ["left": .string, "right": .string, "into": .string]) { invocation in
            invocation.log(.info, "concat ran")
            let suffix = invocation.payload?["suffix"]?.stringValue ?? ""
            guard let left = invocation.params["left"]?.stringValue,
                  let into = invocation.params["into"]?.stringValue else {
                return .failure("concat needs left and into")
            }
            let joined = left + (invocation.params["right"]?.stringValue ?? "") + suffix
            return .success(variables: [into: .string(joined), "calls": 1],
                            result: ["length": .number(Double(joined.count))])
        }
        plugin.registerAction(key: "fail", version: 2) { _ in .failure("it failed on purpose") }
    }
}

/// Exported under a test-only name: a test binary must not export `graft_entry`.
@_cdecl("graft_kit_test_entry") public func graftKitTestEntry() -> UnsafeRawPointer { TestPlugin.entry }
