import GraftKit

/// The plugin `graft new swift almanac` made, and the component `almanac_day`
/// (Foundation, swift-collections: see AlmanacDay.swift).
enum AlmanacPlugin: GraftPlugin {
    static let info = PluginInfo(
        id: "com.example.almanac", version: "0.1.0", name: "Almanac", vendor: "Example",
        description: "A counter, and a day as Foundation describes it.")

    static func register(in plugin: PluginRegistration) {
        plugin.registerCustomComponent(key: "almanac", version: 1, definition: CustomComponentDefinition(
            name: "Counter", description: "A title and a count that goes up with each tap.",
            inputs: ["title": .string, "count": .number],
            outputs: ["tapped": OutputSchema(description: "The user tapped: the count went up by one.", payload: ["count": .number])],
            interactions: ["tap": InteractionSchema(description: "Add one to the count: emits `tapped`.")],
            debugConfig: ["title": "Taps", "count": 0],
            factory: { props, context in AlmanacComponent(props: props, context: context) }))
        plugin.registerCustomComponent(key: "almanac_day", version: 1, definition: CustomComponentDefinition(
            name: "Day", description: "A day, as Foundation describes it.", inputs: ["date": .string],
            debugConfig: ["date": "2026-11-28"],
            factory: { props, context in AlmanacDay(props: props, context: context) }))
        plugin.registerValidator(
            name: "almanac_max_length", version: 1, description: "The value has at most `max` characters.",
            params: ["max"], message: "is too long", validate: MaxLength.validate)
        plugin.registerAction(
            key: "almanac_greet", version: 1, name: "Greet", description: "Answers {\"greeting\": \"Hello, NAME\"}.",
            params: ["name": .string], perform: Greet.perform)
    }
}

/// The one symbol a plugin exports (exports.map keeps every other one inside).
@_cdecl("graft_entry") public func graftEntry() -> UnsafeRawPointer { AlmanacPlugin.entry }
