import GraftHost

/// Everything a host has loaded and everything it refused, in a stable order:
/// the data behind `graft list`, `graft debug plugins` and the debug
/// endpoint's `plugins` request.
///
/// Plugins are sorted by id then path, failures by path, and each plugin's
/// components, validators and actions by key (or name) then version, so two
/// hosts with the same plugins print the same report whatever the load order.
public struct PluginReport: Sendable {
    public var plugins: [PluginInfo]
    public var failures: [PluginFailure]

    public init(plugins: [PluginInfo], failures: [PluginFailure]) {
        self.plugins = plugins.map(Self.sortedContents).sorted { ($0.id, $0.path) < ($1.id, $1.path) }
        self.failures = failures.sorted { $0.path < $1.path }
    }

    private static func sortedContents(of plugin: PluginInfo) -> PluginInfo {
        var plugin = plugin
        plugin.components.sort { ($0.key, $0.version) < ($1.key, $1.version) }
        plugin.validators.sort { ($0.name, $0.version) < ($1.name, $1.version) }
        plugin.actions.sort { ($0.key, $0.version) < ($1.key, $1.version) }
        return plugin
    }

    public init(host: GraftHost) {
        self.init(plugins: host.plugins, failures: host.failures)
    }

    /// `{"plugins": [...], "failures": [...]}` as documented in the README.
    public var json: GraftValue {
        .object([
            "plugins": .list(plugins.map(Self.json(plugin:))),
            "failures": .list(failures.map(Self.json(failure:))),
        ])
    }

    public static func json(plugin: PluginInfo) -> GraftValue {
        var object: [String: GraftValue] = [
            "id": .string(plugin.id),
            "version": .string(plugin.version),
            "name": .string(plugin.name),
            "path": .string(plugin.path),
            "abi": .string(plugin.abi.description),
            "status": "loaded",
            "canUnload": .bool(plugin.canUnload),
            "mapped": .bool(plugin.isMapped),
            "components": .list(plugin.components.map(json(component:))),
            "validators": .list(plugin.validators.map(json(validator:))),
            "actions": .list(plugin.actions.map(json(action:))),
        ]
        if let vendor = plugin.vendor { object["vendor"] = .string(vendor) }
        if let description = plugin.description { object["description"] = .string(description) }
        return .object(object)
    }

    public static func json(component: ComponentContract) -> GraftValue {
        var object: [String: GraftValue] = [
            "key": .string(component.key),
            "version": .number(Double(component.version)),
            "inputs": fields(component.inputs),
            "outputs": .object(Dictionary(uniqueKeysWithValues: component.outputs.map { output in
                (output.event, GraftValue.object([
                    "description": .string(output.description ?? ""),
                    "payload": fields(output.payload),
                ]))
            })),
            "debugConfig": .object(component.debugConfig),
            "interactions": .list(component.interactions.map { interaction in
                var described: [String: GraftValue] = ["name": .string(interaction.name), "data": fields(interaction.data)]
                if let description = interaction.description { described["description"] = .string(description) }
                return .object(described)
            }),
        ]
        if let name = component.name { object["name"] = .string(name) }
        if let description = component.description { object["description"] = .string(description) }
        return .object(object)
    }

    public static func json(validator: ValidatorContract) -> GraftValue {
        var object: [String: GraftValue] = [
            "name": .string(validator.name),
            "version": .number(Double(validator.version)),
            "kind": validator.signature == nil ? "generic" : "native",
            "params": .list(validator.params.map { .object(["name": .string($0.key), "type": .string($0.type.rawValue)]) }),
        ]
        if let signature = validator.signature { object["signature"] = .string(signature) }
        if let message = validator.message { object["message"] = .string(message) }
        if let description = validator.description { object["description"] = .string(description) }
        return .object(object)
    }

    public static func json(action: ActionContract) -> GraftValue {
        var object: [String: GraftValue] = [
            "key": .string(action.key),
            "version": .number(Double(action.version)),
            "params": fields(action.params),
        ]
        if let description = action.description { object["description"] = .string(description) }
        return .object(object)
    }

    public static func json(failure: PluginFailure) -> GraftValue {
        .object([
            "path": .string(failure.path),
            "code": .string(failure.error.code.rawValue),
            "message": .string(failure.error.message),
        ])
    }

    static func fields(_ fields: [FieldSpec]) -> GraftValue {
        .object(Dictionary(uniqueKeysWithValues: fields.map { ($0.key, GraftValue.string($0.type.rawValue)) }))
    }

    /// The debugger's layout (`graft debug plugins`): failures first, with
    /// why, then each plugin. The same text `graft debug attach … plugins`
    /// prints from a running host's JSON.
    public var debuggerText: String { PluginReportLayout.text(fromJSON: json) }

    /// The human layout of `graft list`.
    public var text: String {
        var lines: [String] = []
        for plugin in plugins {
            let unloading = plugin.canUnload ? "can unload" : "never unloaded (contains Swift)"
            let mapped = plugin.isMapped ? "mapped" : "maps on first use"
            lines.append("\(plugin.id) \(plugin.version) — \(plugin.name)  [ABI \(plugin.abi), loaded, \(mapped), \(unloading)]")
            lines.append("  path: \(plugin.path)")
            if !plugin.components.isEmpty {
                lines.append("  components:")
                for component in plugin.components { lines += Self.lines(component: component, indent: "    ") }
            }
            if !plugin.validators.isEmpty {
                lines.append("  validators:")
                for validator in plugin.validators {
                    let kind = validator.signature.map { "native \($0)" } ?? "generic"
                    let params = validator.params.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ")
                    lines.append("    \(validator.name)@\(validator.version)  (\(kind))\(params.isEmpty ? "" : "  params: \(params)")")
                }
            }
            if !plugin.actions.isEmpty {
                lines.append("  actions:")
                for action in plugin.actions {
                    let params = action.params.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ")
                    lines.append("    \(action.key)@\(action.version)  params: \(params.isEmpty ? "none" : params)")
                }
            }
            lines.append("")
        }
        if plugins.isEmpty { lines += ["no plugins loaded", ""] }
        if !failures.isEmpty {
            lines.append("failed to load (\(failures.count)):")
            for failure in failures {
                lines.append("  \(failure.path)")
                lines.append("    \(failure.error.code.rawValue): \(failure.error.message)")
            }
        }
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// One component's contract, as `graft list` and `graft inspect` print it.
    public static func lines(component: ComponentContract, indent: String) -> [String] {
        var lines = ["\(indent)\(component.key)@\(component.version)\(component.name.map { "  — \($0)" } ?? "")"]
        let inputs = component.inputs.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ")
        lines.append("\(indent)  inputs: \(inputs.isEmpty ? "none" : inputs)")
        if component.outputs.isEmpty {
            lines.append("\(indent)  outputs: none")
        } else {
            lines.append("\(indent)  outputs:")
            for output in component.outputs {
                let payload = output.payload.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ")
                lines.append("\(indent)    \(output.event) {\(payload)}\(output.description.map { "  — \($0)" } ?? "")")
            }
        }
        if !component.interactions.isEmpty {
            lines.append("\(indent)  interactions:")
            for interaction in component.interactions {
                let data = interaction.data.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ")
                lines.append("\(indent)    \(interaction.name)\(data.isEmpty ? "" : " {\(data)}")\(interaction.description.map { "  — \($0)" } ?? "")")
            }
        }
        lines.append("\(indent)  debugConfig: \(GraftValue.object(component.debugConfig).jsonText)")
        return lines
    }
}
