import GraftHost

extension CheckRun {
    /// Each instance on each screen: its component, its bindings and its wiring.
    mutating func checkScreens() {
        for (screenIndex, screen) in flow.screens.enumerated() {
            let screenPath = JSONPath.root.key("screens").index(screenIndex)
            for (index, instance) in screen.instances.enumerated() {
                checkPlacement(instance, at: screenPath.key("instances").index(index), screenIndex: screenIndex)
            }
        }
    }

    private mutating func checkPlacement(_ instance: FlowInstance, at path: JSONPath, screenIndex: Int) {
        let registered = resolveOrReport(
            instance.component, componentPath: path.key("component"), versionPath: path.key("version"),
            what: "instance '\(instance.id)' places")
        // The document guarantees a definition for every placement.
        guard let definition = flow.definition(of: instance.component) else { return }
        for key in instance.inputs.keys.sorted() {
            checkBinding(key, of: instance, definition: definition, plugin: registered?.contract, at: path.key("inputs").key(key))
        }
        for event in instance.wiredEvents {
            let payload = definition.output(event)?.payload ?? []
            checkWiring(
                instance.wiring[event] ?? [], payload: payload, event: event, instance: instance.id, at: path.key("on").key(event),
                screenIndex: screenIndex)
        }
    }

    private mutating func checkBinding(
        _ key: String, of instance: FlowInstance, definition: ComponentContract, plugin: ComponentContract?, at path: JSONPath
    ) {
        let value = instance.inputs[key] ?? .null
        checkVariables(in: value, at: path, instance: instance.id)
        guard let declared = definition.input(key) else {
            add(
                .contractMismatch, .inputNotInDefinition, at: path, plugin: plugin?.input(key)?.type.rawValue,
                "instance '\(instance.id)' sets input '\(key)', which the editor's definition of \(definition.reference) does not declare.")
            return
        }
        // What matters at run time is the plugin's type: the host drops a
        // mistyped input. Without a plugin, the definition is all there is.
        let expected = plugin?.input(key)?.type ?? (plugin == nil ? declared.type : nil)
        guard let expected, let bound = boundType(of: value), bound != expected else { return }
        add(
            .contractMismatch, .bindingType, at: path, editor: bound.rawValue, plugin: plugin == nil ? nil : expected.rawValue,
            "instance '\(instance.id)' binds input '\(key)' to a \(bound.rawValue), but \(definition.reference) declares it a \(expected.rawValue); the component will get its default.")
    }

    /// The type a binding has before the flow runs: a constant's own type, a
    /// `{{variables.NAME}}`'s initial value type, text for interpolation;
    /// nil when it cannot be known (null).
    private func boundType(of value: GraftValue) -> ValueType? {
        if case .string(let text) = value, text.contains("{{"), let template = try? Template(parsing: text, at: .root) {
            guard let reference = template.wholeReference else { return .string }
            guard case .variable(let name) = reference, let initial = flow.variables[name], initial != .null else { return nil }
            return initial.type
        }
        return value == .null ? nil : value.type
    }

    /// A finding for each `{{variables.NAME}}` in `value` that `$.variables` lacks.
    mutating func checkVariables(in value: GraftValue, at path: JSONPath, instance: String) {
        for found in (try? TemplateScan.references(in: value, at: path)) ?? [] {
            guard case .variable(let name) = found.reference, flow.variables[name] == nil else { continue }
            add(
                .undeclaredVariable, .undeclaredVariable, at: found.path, editor: found.reference.description,
                "instance '\(instance)' uses \(found.reference), but $.variables does not declare '\(name)'.")
        }
    }
}
