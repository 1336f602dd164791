import GraftHost

extension FlowEvent {
    /// Reads one line of an events file:
    /// `{"instance": "ID", "event": "NAME", "payload": {...}}` or
    /// `{"instance": "ID", "interact": "ACTION", "data": {...}}`
    /// (`payload` and `data` are optional). Errors name the JSON path.
    public init(json line: String) throws(GraftError) {
        let value: GraftValue
        do {
            value = try GraftValue(json: line)
        } catch {
            throw GraftError(.invalidJSON, "the event is not valid JSON: \(JSONSyntax.describeError(in: line))")
        }
        let root = JSONNode(value: value, path: .root)
        let object = try root.object(allowing: ["instance", "event", "payload", "interact", "data"])
        let instance = try object.required("instance").string()
        switch (object.optional("event"), object.optional("interact")) {
        case (let event?, nil):
            if object.optional("data") != nil { throw root.error("\"data\" goes with \"interact\"; an emitted event carries a \"payload\".") }
            self = .emit(instance: instance, event: try event.string(), payload: object.optional("payload")?.value)
        case (nil, let interact?):
            if object.optional("payload") != nil { throw root.error("\"payload\" goes with \"event\"; an interaction carries \"data\".") }
            self = .interact(instance: instance, action: try interact.string(), data: object.optional("data")?.value)
        case (.some, .some):
            throw root.error("give either \"event\" (a component event) or \"interact\" (a user interaction), not both.")
        case (nil, nil):
            throw root.error("missing \"event\" (a component event) or \"interact\" (a user interaction).")
        }
    }
}
