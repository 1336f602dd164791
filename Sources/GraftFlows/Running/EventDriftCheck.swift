import GraftHost

/// Checks an event fed to the runner against the component's declared
/// outputs, with the same rules and wording as the host applies to events
/// a plugin emits (GraftHost's own check is internal to it).
enum EventDriftCheck {
    static func warnings(
        event: String, payload: GraftValue?, against contract: ComponentContract, instanceID: String
    ) -> [GraftWarning] {
        guard let output = contract.output(event) else {
            return [GraftWarning(
                .undeclaredEvent,
                "instance '\(instanceID)' emitted '\(event)', which \(contract.reference) does not declare; forwarded anyway.",
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
        for spec in output.payload {
            guard let value = fields[spec.key] else {
                warnings.append(mismatch("lacks declared field '\(spec.key)' (\(spec.type.rawValue))"))
                continue
            }
            if !spec.type.accepts(value) {
                warnings.append(mismatch("has '\(spec.key)' as a \(value.type.rawValue) but it is declared \(spec.type.rawValue)"))
            }
        }
        for key in fields.keys.sorted() where !output.payload.contains(where: { $0.key == key }) {
            warnings.append(mismatch("has field '\(key)', which the schema does not declare"))
        }
        return warnings
    }
}
