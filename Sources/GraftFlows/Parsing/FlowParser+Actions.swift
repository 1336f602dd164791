import GraftHost

extension FlowParser {
    /// A list of actions, as wired to an event or nested in `validate`.
    func actions(_ node: JSONNode) throws(GraftError) -> [FlowAction] {
        var actions: [FlowAction] = []
        for item in try node.list() { actions.append(try action(item)) }
        return actions
    }

    private func action(_ node: JSONNode) throws(GraftError) -> FlowAction {
        guard case .object(let fields) = node.value else {
            throw node.error("expected an action object such as {\"action\": \"go_to\", \"screen\": \"…\"}, found \(GraftValueText.describe(node.value)).")
        }
        let nameNode = try JSONObjectNode(fields: fields, path: node.path).required("action")
        let name = try nameNode.string()
        switch name {
        case "set_variable":
            let object = try node.object(allowing: ["action", "variable", "value"])
            let variableNode = try object.required("variable")
            let variable = try variableNode.string()
            guard Self.isVariableName(variable) else {
                throw variableNode.error("\(GraftValueText.quoted(variable)) is not a variable name: use letters, digits, '_', '.', '-'.")
            }
            return .setVariable(name: variable, value: try templated(object, "value") ?? .null)
        case "go_to":
            let object = try node.object(allowing: ["action", "screen"])
            let screenNode = try object.required("screen")
            let screen = try screenNode.string()
            guard screenIDs.contains(screen) else {
                throw screenNode.error("go_to names the screen \(GraftValueText.quoted(screen)), which does not exist (screens: \(screenIDs.joined(separator: ", "))).")
            }
            return .goTo(screen: screen)
        case "validate":
            let object = try node.object(allowing: ["action", "validator", "value", "params", "on_invalid", "on_valid"])
            let validatorNode = try object.required("validator")
            let validator = try validatorNode.string()
            do {
                _ = try ComponentReference(parsing: validator)
            } catch {
                throw validatorNode.error("\(GraftValueText.quoted(validator)) does not name a validator; write NAME or NAME@VERSION.")
            }
            guard let value = try templated(object, "value") else { throw object.missing("value") }
            var params: [GraftValue] = []
            for param in try object.optional("params")?.list() ?? [] {
                switch param.value {
                case .string, .number, .bool: params.append(try checkedTemplates(param))
                default: throw param.error("validator params are text (numbers and booleans are converted); found \(GraftValueText.describe(param.value)).")
                }
            }
            return .validate(
                validator: validator, value: value, params: params,
                onInvalid: try object.optional("on_invalid").map { node throws(GraftError) in try actions(node) } ?? [],
                onValid: try object.optional("on_valid").map { node throws(GraftError) in try actions(node) } ?? [])
        case "track":
            let object = try node.object(allowing: ["action", "event", "properties"])
            let event = try object.required("event").string()
            return .track(event: event, properties: try objectOfTemplates(object, "properties"))
        case "close":
            _ = try node.object(allowing: ["action"])
            return .close
        default:
            guard let definition = actionDefinitions.first(where: { $0.key == name }) else {
                let declared = actionDefinitions.map(\.key)
                throw nameNode.error(
                    "unknown action \(GraftValueText.quoted(name)): built-in actions are \(FlowAction.builtInNames.joined(separator: ", ")); a custom action must be defined in $.actions (defined: \(declared.isEmpty ? "none" : declared.joined(separator: ", "))).")
            }
            let object = try node.object(allowing: ["action", "params"])
            return .custom(reference: definition.reference, params: try objectOfTemplates(object, "params"))
        }
    }

    /// The member `key` with its templates checked, or nil when absent.
    private func templated(_ object: JSONObjectNode, _ key: String) throws(GraftError) -> GraftValue? {
        guard let node = object.optional(key) else { return nil }
        return try checkedTemplates(node)
    }

    /// The member `key` as an object with its templates checked; empty when absent.
    private func objectOfTemplates(_ object: JSONObjectNode, _ key: String) throws(GraftError) -> [String: GraftValue] {
        guard let node = object.optional(key) else { return [:] }
        let fields = try node.anyObject()
        _ = try checkedTemplates(node)
        return fields
    }

    private func checkedTemplates(_ node: JSONNode) throws(GraftError) -> GraftValue {
        _ = try TemplateScan.references(in: node.value, at: node.path)
        return node.value
    }
}

extension JSONObjectNode {
    func missing(_ key: String) -> GraftError {
        GraftError(.invalidFlow, "\(path): missing required field \(GraftValueText.quoted(key)).")
    }
}
