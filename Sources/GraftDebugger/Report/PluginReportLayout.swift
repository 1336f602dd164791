import GraftHost

/// The debugger's text layout of a plugin report. It reads the report's JSON
/// form rather than `PluginDescription`, so a report that arrived over the debug
/// socket prints exactly like one built in this process.
enum PluginReportLayout {
    static func text(fromJSON report: GraftValue) -> String {
        let plugins = report["plugins"]?.listValue ?? []
        let failures = report["failures"]?.listValue ?? []
        let (clashes, failed) = PluginReport.clashesApart(
            failures, path: { $0["path"]?.stringValue }, code: { $0["code"]?.stringValue },
            loaded: Set(plugins.compactMap { $0["path"]?.stringValue }))
        var header = "\(plugins.count) plugin\(plugins.count == 1 ? "" : "s") loaded, \(failed.count) failed to load"
        if !clashes.isEmpty { header += ", \(clashes.count) bare name\(clashes.count == 1 ? "" : "s") another plugin answers" }
        var lines = [header]
        for (label, listed) in [("FAILED", failed), ("CLASH ", clashes)] {
            for failure in listed {
                lines.append("")
                lines.append("\(label)  \(failure["path"]?.stringValue ?? "?")")
                lines.append("        \(failure["code"]?.stringValue ?? "?"): \(failure["message"]?.stringValue ?? "")")
            }
        }
        for plugin in plugins {
            lines.append("")
            lines += self.lines(plugin: plugin)
        }
        return lines.joined(separator: "\n")
    }

    private static func lines(plugin: GraftValue) -> [String] {
        let name = plugin["name"]?.stringValue.map { " — \($0)" } ?? ""
        let unloading = plugin["canUnload"]?.boolValue == true ? "can unload" : "never unloaded (linked with the Swift runtime)"
        var lines = [
            "\(plugin["id"]?.stringValue ?? "?") \(plugin["version"]?.stringValue ?? "?")\(name)",
            "  path    \(plugin["path"]?.stringValue ?? "?")",
            plugin["format"]?.stringValue == "wasm32"
                ? "  status  \(plugin["status"]?.stringValue ?? "?") · WebAssembly ABI \(plugin["abi"]?.stringValue ?? "?") · \(PluginReport.anyHost)"
                : "  status  \(plugin["status"]?.stringValue ?? "?") · ABI \(plugin["abi"]?.stringValue ?? "?") · \(unloading)",
        ]
        if let signer = plugin["signer"] {
            lines.append("  signed  \((signer["publisher"]?.stringValue ?? "?").escapingControls) · key \(signer["keyID"]?.stringValue ?? "?")")
        }
        for permission in plugin["permissions"]?.listValue ?? [] {
            let granted = permission["granted"]?.boolValue.map { $0 ? " (granted)" : " (not granted)" } ?? ""
            lines.append(
                "  permission  \(permission["permission"]?.stringValue ?? "?")\(granted) — \((permission["reason"]?.stringValue ?? "").escapingControls)")
        }
        for act in plugin["sandboxDenied"]?.listValue ?? [] {
            lines.append("  sandbox_denied  \((act.stringValue ?? "?").escapingControls)")
        }
        let components = plugin["components"]?.listValue ?? []
        if !components.isEmpty {
            lines.append("  components")
            for component in components {
                lines.append("    \(reference(component, nameKey: "key"))\(component["name"]?.stringValue.map { " — \($0)" } ?? "")")
                lines.append("      inputs       \(fields(component["inputs"]))")
                let outputs = (component["outputs"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
                lines.append("      outputs      \(outputs.isEmpty ? "none" : outputs.map { "\($0.key) {\(fields($0.value["payload"], empty: ""))}" }.joined(separator: ", "))")
                let interactions = component["interactions"]?.listValue ?? []
                if !interactions.isEmpty {
                    lines.append("      interactions \(interactions.map { "\($0["name"]?.stringValue ?? "?")\(fields($0["data"], empty: "").isEmpty ? "" : " {\(fields($0["data"], empty: ""))}")" }.joined(separator: ", "))")
                }
                lines.append("      debugConfig  \((component["debugConfig"] ?? .object([:])).jsonText)")
                for story in component["stories"]?.listValue ?? [] {
                    let name = story["name"]?.stringValue ?? "?"
                    lines.append("      story \(name)\(String(repeating: " ", count: max(1, 7 - name.count)))\((story["config"] ?? .object([:])).jsonText)")
                }
            }
        }
        let validators = plugin["validators"]?.listValue ?? []
        if !validators.isEmpty {
            lines.append("  validators")
            for validator in validators {
                let kind = validator["signature"]?.stringValue.map { "native \($0)" } ?? "generic"
                let params = (validator["params"]?.listValue ?? []).map {
                    "\($0["name"]?.stringValue ?? "?"): \($0["type"]?.stringValue ?? "?")"
                }
                lines.append("    \(reference(validator, nameKey: "name"))  \(kind)\(params.isEmpty ? "" : "  params: \(params.joined(separator: ", "))")")
            }
        }
        let actions = plugin["actions"]?.listValue ?? []
        if !actions.isEmpty {
            lines.append("  actions")
            for action in actions {
                lines.append("    \(reference(action, nameKey: "key"))  params: \(fields(action["params"]))")
            }
        }
        return lines
    }

    private static func reference(_ object: GraftValue, nameKey: String) -> String {
        let version = object["version"]?.numberValue.map { String(Int($0)) } ?? "?"
        return "\(object[nameKey]?.stringValue ?? "?")@\(version)"
    }

    /// `name: type, …` sorted by name, or `empty` when there are none.
    private static func fields(_ value: GraftValue?, empty: String = "none") -> String {
        let fields = (value?.objectValue ?? [:]).sorted { $0.key < $1.key }
        guard !fields.isEmpty else { return empty }
        return fields.map { "\($0.key): \($0.value.stringValue ?? $0.value.jsonText)" }.joined(separator: ", ")
    }
}

extension PluginReport {
    /// The debugger's layout of a report in its JSON form (`PluginReport.json`),
    /// as received from a running host's debug endpoint.
    public static func debuggerText(fromJSON report: GraftValue) -> String {
        PluginReportLayout.text(fromJSON: report)
    }
}
