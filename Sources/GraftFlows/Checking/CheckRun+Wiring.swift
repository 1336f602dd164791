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
                if let reference = try? ComponentReference(parsing: validator), !registry.validators.contains(reference) {
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
            case .custom(_, let params):
                checkTemplates(in: .object(params), at: actionPath.key("params"), payload: payload, event: event, instance: instance)
            case .close:
                break
            }
        }
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
