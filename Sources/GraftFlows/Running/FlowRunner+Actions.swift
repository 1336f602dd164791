import GraftHost

extension FlowRunner {
    /// Whether the actions after this one still run.
    enum Continuation {
        case proceed
        /// A failed `validate` or a `close` stops the list it is in.
        case stop
    }

    /// Runs `actions` in order until one stops the list.
    @discardableResult
    func run(_ actions: [FlowAction], for trigger: ActionTrigger) -> Continuation {
        for action in actions {
            if isClosed || run(action, for: trigger) == .stop { return .stop }
        }
        return .proceed
    }

    private func run(_ action: FlowAction, for trigger: ActionTrigger) -> Continuation {
        switch action {
        case .setVariable(let name, let value):
            let resolved = resolve(value, in: action, for: trigger)
            if flow.variables[name] == nil {
                warn(
                    .invalidConfig, "instance '\(trigger.instance)': set_variable sets '\(name)', which $.variables does not declare.",
                    instance: trigger.instance)
            }
            recordAction(action, for: trigger, params: ["variable": .string(name), "value": resolved], variablesSet: [name: resolved])
            assign(resolved, to: name)
            return .proceed

        case .goTo(let target):
            recordAction(action, for: trigger, params: ["screen": .string(target)])
            pendingScreen = target
            return .proceed

        case .validate(let validator, let value, let params, let onInvalid, let onValid):
            return validate(validator, value: value, params: params, onInvalid: onInvalid, onValid: onValid, in: action, for: trigger)

        case .track(let event, let properties):
            let resolved = resolve(.object(properties), in: action, for: trigger)
            recordAction(action, for: trigger, params: ["event": .string(event), "properties": resolved])
            return .proceed

        case .close:
            recordAction(action, for: trigger, params: [:])
            closeFlow()
            return .stop

        case .custom(let reference, let params):
            invoke(reference, params: params, in: action, for: trigger)
            return .proceed
        }
    }

    private func validate(
        _ validator: String, value: GraftValue, params: [GraftValue], onInvalid: [FlowAction], onValid: [FlowAction],
        in action: FlowAction, for trigger: ActionTrigger
    ) -> Continuation {
        let resolvedValue = resolve(value, in: action, for: trigger)
        let resolvedParams = params.map { GraftValueText.interpolated(resolve($0, in: action, for: trigger)) }
        let actionParams: [String: GraftValue] = [
            "validator": .string(validator), "value": resolvedValue, "params": .list(resolvedParams.map(GraftValue.string)),
        ]
        let result: ValidationOutcome
        do {
            result = try host.validate(validator, value: resolvedValue, params: resolvedParams)
        } catch {
            // A validator that cannot run proves nothing: stop, as for an invalid value.
            recordAction(action, for: trigger, params: actionParams, error: "\(error.code.rawValue): \(error.message)")
            warn(error.code, "instance '\(trigger.instance)': validate could not run: \(error.message)", instance: trigger.instance)
            return .stop
        }
        var answer: [String: GraftValue] = ["valid": .bool(result.isValid)]
        if let message = result.message { answer["message"] = .string(message) }
        recordAction(action, for: trigger, params: actionParams, result: .object(answer))
        record(.validation(ValidationRecord(
            validator: validator, value: resolvedValue, params: resolvedParams, isValid: result.isValid, message: result.message)))
        guard result.isValid else {
            run(onInvalid, for: trigger)
            return .stop
        }
        return run(onValid, for: trigger)
    }

    private func invoke(_ reference: ComponentReference, params: [String: GraftValue], in action: FlowAction, for trigger: ActionTrigger) {
        let resolved = resolve(.object(params), in: action, for: trigger)
        let result: ActionOutcome
        do {
            result = try host.invokeAction(reference.description, params: resolved.objectValue ?? [:], payload: trigger.payload)
        } catch {
            recordAction(action, for: trigger, params: resolved, error: "\(error.code.rawValue): \(error.message)")
            warn(error.code, "instance '\(trigger.instance)': \(error.message)", instance: trigger.instance)
            return
        }
        recordAction(
            action, for: trigger, params: resolved, error: result.ok ? nil : (result.error ?? "failed without saying why"),
            result: result.result, variablesSet: result.variables, times: (result.wallTime, result.cpuTime))
        guard result.ok else {
            warn(
                .actionFailed, "instance '\(trigger.instance)': action '\(reference.key)' failed: \(result.error ?? "no reason given")",
                instance: trigger.instance)
            return
        }
        for name in result.variables.keys.sorted() {
            if let value = result.variables[name] { assign(value, to: name) }
        }
    }

    private func assign(_ value: GraftValue, to name: String) {
        let old = variables[name]
        variables[name] = value
        if old != value { record(.variableChange(VariableChange(name: name, oldValue: old, newValue: value))) }
    }

    /// Resolves `{{…}}` for an action, warning about what could not be found.
    private func resolve(_ value: GraftValue, in action: FlowAction, for trigger: ActionTrigger) -> GraftValue {
        let (resolved, missing) = TemplateResolver(variables: variables, payload: trigger.payload).resolve(value)
        for reference in missing {
            switch reference {
            case .payload(let key):
                warn(
                    .payloadSchemaMismatch,
                    "instance '\(trigger.instance)': \(action.name) uses \(reference), but the '\(trigger.event)' payload has no '\(key)'; it resolved to null.",
                    instance: trigger.instance)
            case .variable:
                warn(
                    .invalidConfig,
                    "instance '\(trigger.instance)': \(action.name) uses \(reference), which is not a flow variable; it resolved to null.",
                    instance: trigger.instance)
            }
        }
        return resolved
    }

    private func recordAction(
        _ action: FlowAction, for trigger: ActionTrigger, params: [String: GraftValue], error: String? = nil,
        result: GraftValue? = nil, variablesSet: [String: GraftValue] = [:], times: (wall: Duration?, cpu: Duration?) = (nil, nil)
    ) {
        recordAction(action, for: trigger, params: .object(params), error: error, result: result, variablesSet: variablesSet, times: times)
    }

    private func recordAction(
        _ action: FlowAction, for trigger: ActionTrigger, params: GraftValue, error: String? = nil, result: GraftValue? = nil,
        variablesSet: [String: GraftValue] = [:], times: (wall: Duration?, cpu: Duration?) = (nil, nil)
    ) {
        record(.action(ActionRecord(
            instance: trigger.instance, event: trigger.event, name: action.name, params: params, ok: error == nil, error: error,
            result: result, variablesSet: error == nil ? variablesSet : [:], wallTime: times.wall, cpuTime: times.cpu)))
    }
}
