/// The runtime side of a contract: what happens when a flow's inputs or a
/// component's events drift from what was declared. Flow SDKs forward drift
/// with a warning instead of failing, and so does Graft.
enum DriftCheck {
    /// Splits `inputs` into what the component receives and the warnings.
    /// A declared input of the wrong type is dropped (the component falls back
    /// to its default); an undeclared key is forwarded with a warning.
    static func bind(
        _ inputs: [String: GraftValue], to contract: ComponentContract, instanceID: String
    ) -> (forwarded: [String: GraftValue], warnings: [GraftWarning]) {
        // The usual case, checked without sorting or copying: every input
        // declared, typed as declared, and set.
        if inputs.allSatisfy({ key, value in
            value != .null && contract.inputs.contains { $0.key == key && $0.type.accepts(value) }
        }) {
            return (inputs, [])
        }
        var forwarded: [String: GraftValue] = [:]
        var warnings: [GraftWarning] = []
        for key in inputs.keys.sorted() {
            let value = inputs[key]!
            guard let spec = contract.input(key) else {
                warnings.append(GraftWarning(
                    .unknownInput,
                    "instance '\(instanceID)' sets input '\(key)', which \(contract.reference) does not declare; forwarded anyway.",
                    instanceID: instanceID))
                forwarded[key] = value
                continue
            }
            if value == .null { continue }
            guard spec.type.accepts(value) else {
                warnings.append(GraftWarning(
                    .inputTypeMismatch,
                    "instance '\(instanceID)' sets input '\(key)' of \(contract.reference) to a \(value.type.rawValue) but it is declared \(spec.type.rawValue); the component gets its default.",
                    instanceID: instanceID))
                continue
            }
            forwarded[key] = value
        }
        return (forwarded, warnings)
    }

    /// Warnings for an emitted event, given what the contract declares for
    /// `event` (nil: nothing): undeclared, or a payload off its schema.
    /// Every emit calls it: passing the one output, not the contract,
    /// spares a copy of the whole contract per event.
    static func check(
        event: String, payload: GraftValue?, declared output: OutputSpec?, of reference: @autoclosure () -> ComponentReference,
        instanceID: String
    ) -> [GraftWarning] {
        guard let output else {
            return [GraftWarning(
                .undeclaredEvent,
                "instance '\(instanceID)' emitted '\(event)', which \(reference()) does not declare; forwarded anyway.",
                instanceID: instanceID)]
        }
        func mismatch(_ detail: String) -> GraftWarning {
            GraftWarning(
                .payloadSchemaMismatch, "instance '\(instanceID)' emitted '\(event)' with a payload that \(detail); forwarded anyway.",
                instanceID: instanceID)
        }
        let fields: [String: GraftValue]
        switch payload {
        case nil, .null?: fields = [:]
        case .object(let object)?: fields = object
        case let other?: return [mismatch("is a \(other.type.rawValue), not an object")]
        }
        var warnings: [GraftWarning] = []
        var declaredPresent = 0
        for spec in output.payload {
            guard let value = fields[spec.key] else {
                warnings.append(mismatch("lacks declared field '\(spec.key)' (\(spec.type.rawValue))"))
                continue
            }
            declaredPresent += 1
            if !spec.type.accepts(value) {
                warnings.append(mismatch("has '\(spec.key)' as a \(value.type.rawValue) but it is declared \(spec.type.rawValue)"))
            }
        }
        // Every field is a declared one unless there are more: sorted (for a
        // stable order) only then.
        if fields.count > declaredPresent {
            for key in fields.keys.sorted() where !output.payload.contains(where: { $0.key == key }) {
                warnings.append(mismatch("has field '\(key)', which the schema does not declare"))
            }
        }
        return warnings
    }
}

extension ComponentContract {
    /// The warnings an event `event` with `payload` from instance `instanceID`
    /// raises against this contract: the host's own rule, for runners that
    /// feed events themselves.
    package func warnings(forEvent event: String, payload: GraftValue?, instanceID: String) -> [GraftWarning] {
        DriftCheck.check(event: event, payload: payload, declared: output(event), of: reference, instanceID: instanceID)
    }
}
