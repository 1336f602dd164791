import GraftHost

extension DryRunRecord {
    /// `{"type": "emit", "instance", "event", "payload", "origin", "during", "warnings"}` or
    /// `{"type": "action", "instance", "event", "name", "params", "executed": false, "warnings"}`.
    public var json: GraftValue {
        var object: [String: GraftValue] = [
            "instance": .string(instance), "warnings": .list(warnings.map(\.debuggerJSON)),
        ]
        switch entry {
        case .emitted(let event, let payload, let origin, let during):
            object["type"] = "emit"
            object["event"] = .string(event)
            object["payload"] = payload ?? .null
            object["origin"] = .string(origin.rawValue)
            object["during"] = .string(during)
        case .wouldRun(let action, let params, let event):
            object["type"] = "action"
            object["event"] = .string(event)
            object["name"] = .string(action)
            object["params"] = params
            object["executed"] = false
        }
        return .object(object)
    }

    public init(json: GraftValue) throws(GraftError) {
        let fields = try JSONFields(json, context: "a sandbox record")
        let type = try fields.string("type")
        let entry: Entry
        switch type {
        case "emit":
            let originText = try fields.optionalString("origin") ?? Origin.component.rawValue
            entry = .emitted(
                event: try fields.string("event"), payload: fields.optional("payload"),
                origin: Origin(rawValue: originText) ?? .component, during: try fields.optionalString("during") ?? "")
        case "action":
            entry = .wouldRun(
                action: try fields.string("name"), params: fields.optional("params") ?? .object([:]), event: try fields.string("event"))
        default:
            throw GraftError(.invalidJSON, "a sandbox record has type '\(type)'; known types: emit, action.")
        }
        self.init(instance: try fields.string("instance"), entry: entry, warnings: try fields.warnings("warnings"))
    }
}
