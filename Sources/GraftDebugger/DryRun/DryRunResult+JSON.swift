import GraftHost

extension DryRunResult {
    /// The form `graft try --json` prints and the debug endpoint's `try`
    /// answers: `key`, `version`, `plugin`, `pluginPath`, `instance`,
    /// `inputs`, `mediaType`, `output`, `warnings`, `emitted` (the
    /// component's own events: `instance`, `event`, `payload`, `warnings`)
    /// and `actions` (every record, newest last).
    public var json: GraftValue {
        .object([
            "key": .string(component.key),
            "version": .number(Double(component.version)),
            "plugin": .string(pluginID),
            "pluginPath": .string(pluginPath),
            "instance": .string(instance),
            "inputs": .object(inputs),
            "mediaType": .string(rendering.mediaType.rawValue),
            "output": .string(rendering.text),
            "warnings": .list(warnings.map(\.debuggerJSON)),
            "emitted": .list(records.compactMap { record in
                guard case .emitted(let event, let payload, .component, _) = record.entry else { return nil }
                return .object([
                    "instance": .string(record.instance), "event": .string(event), "payload": payload ?? .null,
                    "warnings": .list(record.warnings.map(\.debuggerJSON)),
                ])
            }),
            "actions": .list(records.map(\.json)),
        ])
    }

    /// Reads the form `json` writes, as a debug client receives it.
    public init(json: GraftValue) throws(GraftError) {
        let fields = try JSONFields(json, context: "the sandbox result")
        guard let version = try fields.optionalInteger("version"), version >= 1 else {
            throw GraftError(.invalidJSON, "the sandbox result: \"version\" must be a whole number ≥ 1.")
        }
        var records: [DryRunRecord] = []
        for item in fields.optional("actions")?.listValue ?? [] { records.append(try DryRunRecord(json: item)) }
        self.init(
            component: ComponentReference(key: try fields.string("key"), version: version), pluginID: try fields.string("plugin"),
            pluginPath: try fields.optionalString("pluginPath") ?? "", instance: try fields.optionalString("instance") ?? "sandbox",
            inputs: try fields.object("inputs"),
            rendering: Rendering(mediaType: MediaType(rawValue: try fields.string("mediaType")), text: try fields.string("output")),
            warnings: try fields.warnings("warnings"), records: records)
    }
}
