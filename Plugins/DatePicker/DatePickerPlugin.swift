import GraftKit

/// The first-party date picker: a `date_picker` component (versions 1 and 2),
/// an `iso_date` validator and an `add_days` action.
enum DatePickerPlugin: GraftPlugin {
    static let info = PluginInfo(
        id: "dev.graft.date-picker", version: "1.0.0", name: "Date Picker", vendor: "Graft",
        description: "A date field that emits the picked day, with a date validator and date arithmetic.")

    static func register(in plugin: PluginRegistration) {
        let dateSelected = OutputSchema(
            description: "The user picked a date.",
            payload: ["date": .string, "timestamp": .number])
        let select = ["select": InteractionSchema(description: "Pick a day: emits `date_selected`.", data: ["date": .string])]
        plugin.registerCustomComponent(key: "date_picker", version: 1, definition: CustomComponentDefinition(
            name: "Date picker", description: "A labelled date field.",
            inputs: ["label": .string],
            outputs: ["date_selected": dateSelected], interactions: select,
            debugConfig: ["label": "Pick a date"],
            factory: { props, context in DatePicker(props: props, context: context, version: 1) }))
        plugin.registerCustomComponent(key: "date_picker", version: 2, definition: CustomComponentDefinition(
            name: "Date picker", description: "A labelled date field with an earliest selectable date.",
            inputs: ["label": .string, "min_date": .string],
            outputs: ["date_selected": dateSelected], interactions: select,
            debugConfig: ["label": "Pick a date", "min_date": "2026-01-01"],
            stories: [
                ComponentStory("delivery", description: "Checkout's delivery date: nothing before New Year.",
                               config: ["label": "Delivery date", "min_date": "2027-01-01"]),
                ComponentStory("no_label", description: "An empty label: the field alone.", config: ["label": "", "min_date": "2026-01-01"]),
            ],
            factory: { props, context in DatePicker(props: props, context: context, version: 2) }))
        plugin.registerValidator(
            name: "iso_date", version: 1, description: "A real calendar date written YYYY-MM-DD.",
            params: [], message: "is not a date", validate: ISODateValidator.validate)
        plugin.registerAction(
            key: "add_days", version: 1, name: "Add days",
            description: "Sets a variable to a date shifted by a number of days.",
            params: ["date": .string, "days": .number, "variable": .string],
            perform: AddDaysAction.perform)
    }
}

@_cdecl("graft_entry") public func graftEntry() -> UnsafeRawPointer { DatePickerPlugin.entry }
