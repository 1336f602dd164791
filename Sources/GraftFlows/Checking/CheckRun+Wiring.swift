import GraftHost

extension CheckRun {
    /// The actions wired to one event: variables they use or set, payload
    /// fields they read, validators they call, screens they lead to.
    mutating func checkWiring(
        _ actions: [FlowAction], payload: [FieldSpec], event: String, instance: String, at path: JSONPath, screenIndex: Int
    ) {
        for (index, action) in actions.enumerated() {
            let actionPath = path.index(index)
            switch action {
            case .setVariable(let name, let value):
                if flow.variables[name] == nil {
                    add(
                        .undeclaredVariable, .undeclaredVariable, at: actionPath.key("variable"), editor: name,
                        "instance '\(instance)' sets variable '\(name)' on '\(event)', but $.variables does not declare it.")
                }
                checkTemplates(in: value, at: actionPath.key("value"), payload: payload, event: event, instance: instance)
            case .goTo(let screen):
                transitions[screenIndex, default: []].append(screen)
            case .validate(let validator, let value, let params, let onInvalid, let onValid):
                if let reference = try? ComponentReference(parsing: validator), let contract = registry.validators[reference] {
                    checkValidatorParams(params, of: contract, at: actionPath.key("params"), event: event, instance: instance)
                } else if let reference = try? ComponentReference(parsing: validator), registry.validators[reference] == nil {
                    add(
                        .validatorNotFound, at: actionPath.key("validator"), editor: validator,
                        "instance '\(instance)' validates with '\(validator)' on '\(event)', but no plugin registers that validator.")
                }
                checkTemplates(in: value, at: actionPath.key("value"), payload: payload, event: event, instance: instance)
                checkTemplates(in: .list(params), at: actionPath.key("params"), payload: payload, event: event, instance: instance)
                checkWiring(onInvalid, payload: payload, event: event, instance: instance, at: actionPath.key("on_invalid"), screenIndex: screenIndex)
                checkWiring(onValid, payload: payload, event: event, instance: instance, at: actionPath.key("on_valid"), screenIndex: screenIndex)
            case .track(_, let properties):
                checkTemplates(in: .object(properties), at: actionPath.key("properties"), payload: payload, event: event, instance: instance)
            case .custom(let reference, let params):
                checkTemplates(in: .object(params), at: actionPath.key("params"), payload: payload, event: event, instance: instance)
                if let action = registry.actions[reference] {
                    checkActionParams(params, of: action, at: actionPath.key("params"), event: event, instance: instance)
                }
            case .close:
                break
            }
        }
    }

    /// The params a flow gives a validator against those it declares: as
    /// many, and literal ones of the declared type (a template is checked
    /// when the flow runs). The host refuses a wrong count at run time
    /// (`invalid_param`), where a flow would stall.
    private mutating func checkValidatorParams(
        _ params: [GraftValue], of contract: ValidatorContract, at path: JSONPath, event: String, instance: String
    ) {
        let owner = "validator '\(contract.name)'"
        let declared = contract.params
        let countMatters = !declared.isEmpty || contract.signature != nil
        if countMatters, params.count != declared.count {
            let names = declared.isEmpty ? "" : " (\(declared.map(\.key).joined(separator: ", ")))"
            add(
                .invalidParam, at: path, editor: String(params.count), plugin: String(declared.count),
                "instance '\(instance)' calls \(owner) on '\(event)' with \(params.count) param\(params.count == 1 ? "" : "s"), but it takes \(declared.count)\(names).")
            return
        }
        for (index, (value, field)) in zip(params, declared).enumerated() {
            checkLiteral(value, against: field, asText: true, owner: owner, at: path.index(index), event: event, instance: instance)
        }
    }

    /// The params a flow gives a custom action against those it declares:
    /// known names, and literal values of the declared type.
    private mutating func checkActionParams(
        _ params: [String: GraftValue], of action: RegisteredAction, at path: JSONPath, event: String, instance: String
    ) {
        let owner = "action \(action.contract.key)@\(action.contract.version)"
        let declared = action.contract.params
        for (key, value) in params.sorted(by: { $0.key < $1.key }) {
            guard let field = declared.first(where: { $0.key == key }) else {
                let names = declared.isEmpty ? "none" : declared.map(\.key).joined(separator: ", ")
                add(
                    .invalidParam, at: path.key(key), editor: key,
                    "instance '\(instance)' gives \(owner) param '\(key)' on '\(event)', which it does not declare (its params: \(names)).")
                continue
            }
            checkLiteral(value, against: field, asText: false, owner: owner, at: path.key(key), event: event, instance: instance)
        }
    }

    /// A literal param (not a template) of a type the declared one cannot
    /// take. Validator params travel `asText`, so there a number may be
    /// written as one ("3"), a boolean as "true" or "false", and a string
    /// param takes a number or a boolean as its text.
    private mutating func checkLiteral(
        _ value: GraftValue, against field: FieldSpec, asText: Bool, owner: String, at path: JSONPath, event: String,
        instance: String
    ) {
        if case .string(let text) = value, text.contains("{{") { return }
        let fits: Bool
        switch (field.type, value) {
        case (.number, .number), (.boolean, .bool), (.string, .string), (.list, .list), (.object, .object):
            fits = true
        case (.string, .number), (.string, .bool):
            fits = asText
        case (.number, .string(let text)):
            fits = asText && Double(text) != nil
        case (.boolean, .string(let text)):
            fits = asText && (text == "true" || text == "false")
        default:
            fits = false
        }
        guard !fits else { return }
        add(
            .invalidParam, at: path, editor: value.type.rawValue, plugin: field.type.rawValue,
            "instance '\(instance)' gives \(owner) param '\(field.key)' on '\(event)' as \(value.jsonText) (\(value.type.rawValue)), but it takes \(field.type.rawValue).")
    }

    private mutating func checkTemplates(
        in value: GraftValue, at path: JSONPath, payload: [FieldSpec], event: String, instance: String
    ) {
        checkVariables(in: value, at: path, instance: instance)
        for found in (try? TemplateScan.references(in: value, at: path)) ?? [] {
            guard case .payload(let key) = found.reference, !payload.contains(where: { $0.key == key }) else { continue }
            add(
                .contractMismatch, .payloadFieldNotInDefinition, at: found.path, editor: found.reference.description,
                "instance '\(instance)' uses \(found.reference) on '\(event)', but that event's payload as defined has no '\(key)' (fields: \(Self.summary(payload))).")
        }
    }

    /// Every screen no chain of `go_to` reaches from the first.
    mutating func checkReachability() {
        // A document always has a first screen; an empty one has nothing to reach.
        guard let first = flow.screens.first else { return }
        var reached: Set<String> = []
        var pending = [first.id]
        while let id = pending.popLast() {
            guard reached.insert(id).inserted, let index = flow.screens.firstIndex(where: { $0.id == id }) else { continue }
            pending += transitions[index] ?? []
        }
        for (index, screen) in flow.screens.enumerated() where !reached.contains(screen.id) {
            add(
                .unreachableScreen, .unreachableScreen, at: JSONPath.root.key("screens").index(index), editor: screen.id,
                "screen '\(screen.id)' cannot be reached: no go_to leads to it from the first screen, '\(first.id)'.")
        }
    }
}
