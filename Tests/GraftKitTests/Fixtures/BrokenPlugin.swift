import GraftKit

/// A plugin that breaks graft.h's rules in every way the checker knows.
/// It is never installed as the image's plugin; tests build its image directly.
enum BrokenPlugin: GraftPlugin {
    static let info = PluginInfo(id: "dev.graft.broken", version: "", name: "Broken")

    static func register(in plugin: PluginRegistration) {
        let many = Dictionary(uniqueKeysWithValues: (0..<65).map { ("f\($0)", InputType.string) })
        plugin.registerCustomComponent(key: "Bad Key", version: 0, definition: CustomComponentDefinition(
            inputs: ["shape": .object, "label": .string],
            outputs: ["done": OutputSchema(payload: ["ok?": .boolean])],
            debugConfig: ["label": 5, "ghost": "boo"],
            factory: { _, _ in nil }))
        plugin.registerCustomComponent(key: "dup", version: 1, definition: CustomComponentDefinition(
            inputs: many, factory: { _, _ in nil }))
        plugin.registerCustomComponent(key: "dup", version: 1, definition: CustomComponentDefinition(
            factory: { _, _ in nil }))
        plugin.registerValidator(name: "check", params: ["a", "a"]) { _, _ in .valid }
        plugin.registerAction(key: "", params: ["Up": .string]) { _ in .success() }
    }
}

/// A plugin with components only.
enum ComponentsOnlyPlugin: GraftPlugin {
    static let info = PluginInfo(id: "dev.graft.components-only", version: "1", name: "Components only")

    static func register(in plugin: PluginRegistration) {
        plugin.registerCustomComponent(key: "only", version: 1, definition: CustomComponentDefinition(
            factory: { _, _ in nil }))
    }
}

/// A plugin with many validators, each accepting only its own number.
enum ManyValidatorsPlugin: GraftPlugin {
    static let info = PluginInfo(id: "dev.graft.many", version: "1", name: "Many")

    static func register(in plugin: PluginRegistration) {
        for index in 0..<100 {
            plugin.registerValidator(name: "v\(index)") { value, _ in value.stringValue == "\(index)" ? .valid : .invalid(nil) }
        }
    }
}
