extension CheckFinding {
    /// The kind of a finding, finer than its code. Raw values are stable and
    /// appear in `graft check --flow --json`.
    public enum Detail: String, Sendable, Hashable, CaseIterable {
        // An editor definition against the plugin's registration.
        case inputMissingInPlugin = "input_missing_in_plugin"
        case inputMissingInEditor = "input_missing_in_editor"
        case inputType = "input_type"
        case eventMissingInPlugin = "event_missing_in_plugin"
        case eventMissingInEditor = "event_missing_in_editor"
        case payloadFieldMissingInPlugin = "payload_field_missing_in_plugin"
        case payloadFieldMissingInEditor = "payload_field_missing_in_editor"
        case payloadFieldType = "payload_field_type"
        case paramMissingInPlugin = "param_missing_in_plugin"
        case paramMissingInEditor = "param_missing_in_editor"
        case paramType = "param_type"
        // An instance's bindings and wiring.
        /// The instance sets an input its definition does not declare.
        case inputNotInDefinition = "input_not_in_definition"
        /// A constant (or a variable's initial value) of another type than the component declares.
        case bindingType = "binding_type"
        /// `{{payload.KEY}}` where the event's payload, as defined, has no KEY.
        case payloadFieldNotInDefinition = "payload_field_not_in_definition"
        // The flow itself.
        /// `{{variables.NAME}}` or `set_variable` naming a variable `$.variables` lacks.
        case undeclaredVariable = "undeclared_variable"
        /// No chain of `go_to` leads from the first screen to this one.
        case unreachableScreen = "unreachable_screen"
    }
}
