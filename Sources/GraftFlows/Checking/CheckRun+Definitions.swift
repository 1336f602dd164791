import GraftHost

extension CheckRun {
    /// Each editor definition against the registration of the same key + version.
    mutating func checkDefinitions() {
        for (index, definition) in flow.components.enumerated() {
            let path = JSONPath.root.key("components").index(index)
            guard let registered = resolveOrReport(
                flow.reference(of: definition), componentPath: path, versionPath: path.key("version"), what: "the editor defines")
            else { continue }
            let plugin = registered.contract
            let owner = "\(definition.reference) (plugin \(registered.pluginID))"
            compare(definition.inputs, with: plugin.inputs, role: .input, owner: owner, at: path.key("inputs"))
            let outputsPath = path.key("outputs")
            for event in Set(definition.outputs.map(\.event) + plugin.outputs.map(\.event)).sorted() {
                switch (definition.output(event), plugin.output(event)) {
                case (let editorOutput?, nil):
                    add(
                        .contractMismatch, .eventMissingInPlugin, at: outputsPath.key(event),
                        editor: Self.summary(editorOutput.payload),
                        "the editor defines event '\(event)' for \(owner), which the plugin does not declare; it is never emitted.")
                case (nil, let pluginOutput?):
                    add(
                        .contractMismatch, .eventMissingInEditor, at: outputsPath.key(event),
                        plugin: Self.summary(pluginOutput.payload),
                        "\(owner) declares event '\(event)', which the editor's definition lacks; flows cannot wire actions to it.")
                case (let editorOutput?, let pluginOutput?):
                    compare(
                        editorOutput.payload, with: pluginOutput.payload, role: .payloadField(event: event), owner: owner,
                        at: outputsPath.key(event).key("payload"))
                case (nil, nil):
                    break
                }
            }
        }
    }

    /// Each custom action definition against the registered action.
    mutating func checkActionDefinitions() {
        for (index, definition) in flow.actions.enumerated() {
            let path = JSONPath.root.key("actions").index(index)
            guard let registered = registry.actions[definition.reference] else {
                let versions = registry.actionVersions(of: definition.reference).map(String.init).joined(separator: ", ")
                add(
                    .actionNotFound, at: path, editor: definition.reference.description, plugin: versions.isEmpty ? nil : versions,
                    "the editor defines action \(definition.reference), but no plugin registers it\(versions.isEmpty ? "" : " (registered versions: \(versions))").")
                continue
            }
            guard let params = definition.params else { continue }
            compare(
                params, with: registered.contract.params, role: .param,
                owner: "action \(definition.reference) (plugin \(registered.pluginID))", at: path.key("params"))
        }
    }

    /// What a list of fields is, for details and messages.
    enum FieldRole {
        case input
        case payloadField(event: String)
        case param

        var noun: String {
            switch self {
            case .input: "input"
            case .payloadField(let event): "payload field of event '\(event)'"
            case .param: "param"
            }
        }

        var details: (missingInPlugin: CheckFinding.Detail, missingInEditor: CheckFinding.Detail, type: CheckFinding.Detail) {
            switch self {
            case .input: (.inputMissingInPlugin, .inputMissingInEditor, .inputType)
            case .payloadField: (.payloadFieldMissingInPlugin, .payloadFieldMissingInEditor, .payloadFieldType)
            case .param: (.paramMissingInPlugin, .paramMissingInEditor, .paramType)
            }
        }
    }

    /// Every field on one side only, and every field whose types differ.
    private mutating func compare(
        _ editorFields: [FieldSpec], with pluginFields: [FieldSpec], role: FieldRole, owner: String, at path: JSONPath
    ) {
        let details = role.details
        for key in Set(editorFields.map(\.key) + pluginFields.map(\.key)).sorted() {
            let editor = editorFields.first { $0.key == key }?.type
            let plugin = pluginFields.first { $0.key == key }?.type
            switch (editor, plugin) {
            case (let editor?, nil):
                add(
                    .contractMismatch, details.missingInPlugin, at: path.key(key), editor: editor.rawValue,
                    "the editor defines \(role.noun) '\(key)' (\(editor.rawValue)) for \(owner), which the plugin does not declare.")
            case (nil, let plugin?):
                add(
                    .contractMismatch, details.missingInEditor, at: path.key(key), plugin: plugin.rawValue,
                    "\(owner) declares \(role.noun) '\(key)' (\(plugin.rawValue)), which the editor's definition lacks.")
            case (let editor?, let plugin?) where editor != plugin:
                add(
                    .contractMismatch, details.type, at: path.key(key), editor: editor.rawValue, plugin: plugin.rawValue,
                    "\(role.noun) '\(key)' of \(owner): the editor says \(editor.rawValue), the plugin says \(plugin.rawValue).")
            default:
                break
            }
        }
    }

    /// `{date: string, timestamp: number}`: a payload schema in one line.
    static func summary(_ payload: [FieldSpec]) -> String {
        "{" + payload.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ") + "}"
    }
}
