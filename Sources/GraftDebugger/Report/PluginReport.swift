import GraftHost

/// Everything a host has loaded and everything it refused, in a stable order:
/// the data behind `graft list`, `graft debug plugins` and the debug
/// endpoint's `plugins` request.
///
/// Plugins are sorted by id then path (in natural order: `rating2` before
/// `rating10`), failures by path, and each plugin's
/// components, validators and actions by key (or name) then version, so two
/// hosts with the same plugins print the same report whatever the load order.
public struct PluginReport: Sendable {
    public var plugins: [PluginDescription]
    public var failures: [PluginFailure]
    /// The sandbox the host runs plugins in: what is in force, what each
    /// plugin was granted and was refused. Nil for a report made from plugins
    /// alone (then nothing of the sandbox is printed).
    package var sandbox: Sandbox?

    package struct Sandbox: Sendable {
        package var mode: String
        /// One line for people (`SandboxSupport.summary`).
        package var summary: String
        package var landlockABI: Int
        package var missing: String
        /// What each plugin id is granted.
        package var grants: [String: [Permission]]
        /// The latest refused acts, by plugin path.
        package var denials: [String: [String]]
        /// What each plugin granted a data folder keeps there, by plugin id.
        package var storage: [String: Storage] = [:]
    }

    /// A plugin's data folder: where, what it holds, its limit.
    package struct Storage: Sendable {
        package var folder: String
        package var bytes: UInt64
        package var limit: UInt64

        package var text: String { "\(FolderQuota.size(bytes)) of \(FolderQuota.size(limit)), in \(folder)" }
    }

    public init(plugins: [PluginDescription], failures: [PluginFailure]) {
        self.plugins = plugins.map(Self.sortedContents).sorted {
            $0.id == $1.id ? $0.path.precedesNaturally($1.path) : $0.id.precedesNaturally($1.id)
        }
        self.failures = failures.sorted { $0.path < $1.path }
    }

    private static func sortedContents(of plugin: PluginDescription) -> PluginDescription {
        var plugin = plugin
        plugin.components.sort { $0.key == $1.key ? $0.version < $1.version : $0.key.precedesNaturally($1.key) }
        plugin.validators.sort { $0.name == $1.name ? $0.version < $1.version : $0.name.precedesNaturally($1.name) }
        plugin.actions.sort { $0.key == $1.key ? $0.version < $1.version : $0.key.precedesNaturally($1.key) }
        return plugin
    }

    public init(host: GraftHost) {
        self.init(plugins: host.plugins, failures: host.failures)
        let settings = host.sandboxSettings
        let inProcess = host.configuration.isolation == .inProcess
        let support = SandboxSupport.current
        var denials: [String: [String]] = [:]
        for plugin in plugins {
            let refused = host.sandboxDenials(ofPluginAt: plugin.path)
            if !refused.isEmpty { denials[plugin.path] = refused.map(\.description) }
        }
        var storage: [String: Storage] = [:]
        for plugin in plugins where (settings.grants[plugin.id] ?? []).contains(.dataFolder) {
            guard let folder = settings.dataFolderPath(forPlugin: plugin.id) else { continue }
            storage[plugin.id] = Storage(
                folder: folder, bytes: FolderQuota.usage(of: folder).bytes, limit: settings.dataFolderLimit(forPlugin: plugin.id))
        }
        sandbox = Sandbox(
            mode: inProcess ? "in-process" : settings.mode.rawValue,
            summary: SandboxSupport.summary(mode: settings.mode, inProcess: inProcess, status: support),
            landlockABI: support.landlockABI, missing: support.missing, grants: settings.grants, denials: denials, storage: storage)
    }

    /// `{"plugins": [...], "failures": [...]}` as CommandLine.md documents it:
    /// the text `graft list --json` prints, written directly (see `JSONWriter`).
    public var jsonText: String {
        var writer = JSONWriter(capacity: 1024 + 1024 * plugins.count)
        writer.object { writer in
            writer.key("failures")
            writer.list(count: failures.count) { $0.failure(failures[$1]) }
            writer.key("plugins")
            writer.list(count: plugins.count) { $0.plugin(plugins[$1], sandbox: sandbox) }
            if let sandbox {
                writer.key("sandbox")
                writer.object { writer in
                    writer.member("landlockABI", sandbox.landlockABI)
                    writer.member("missing", sandbox.missing)
                    writer.member("mode", sandbox.mode)
                    writer.member("summary", sandbox.summary)
                }
            }
        }
        return writer.text
    }

    /// The same report as a value, for answers that embed it.
    public var json: GraftValue { Self.value(of: jsonText) }

    public static func json(plugin: PluginDescription) -> GraftValue { value(of: JSONWriter.text { $0.plugin(plugin, sandbox: nil) }) }

    public static func json(component: ComponentContract) -> GraftValue {
        value(of: JSONWriter.text { $0.component(component) })
    }

    public static func json(validator: ValidatorContract) -> GraftValue {
        value(of: JSONWriter.text { $0.validator(validator) })
    }

    public static func json(action: ActionContract) -> GraftValue { value(of: JSONWriter.text { $0.action(action) }) }

    public static func json(failure: PluginFailure) -> GraftValue { value(of: JSONWriter.text { $0.failure(failure) }) }

    /// The writer only writes JSON; `.null` would mean a bug in it.
    private static func value(of text: String) -> GraftValue { (try? GraftValue(json: text)) ?? .null }

    /// The debugger's layout (`graft debug plugins`): failures first, with
    /// why, then each plugin. The same text `graft debug attach … plugins`
    /// prints from a running host's JSON.
    public var debuggerText: String { PluginReportLayout.text(fromJSON: json) }

    /// What a WebAssembly plugin says of where it runs.
    package static let anyHost = "wasm32: runs on any host"

    /// The human layout of `graft list`.
    public var text: String {
        var lines: [String] = []
        for plugin in plugins {
            let unloading = plugin.canUnload ? "can unload" : "never unloaded (linked with the Swift runtime)"
            let mapped = plugin.isMapped ? "mapped" : "maps on first use"
            let status = plugin.isWebAssembly
                ? "WebAssembly ABI \(plugin.abi), \(PluginReport.anyHost), loaded" : "ABI \(plugin.abi), loaded, \(mapped), \(unloading)"
            lines.append("\(plugin.id) \(plugin.version) — \(plugin.name)  [\(status)]")
            lines.append("  path: \(plugin.path)")
            if plugin.isRemoved { lines.append("  removed: its file is gone; it serves the instances still open, and unloads after the last") }
            if let signer = plugin.signer { lines.append("  signed by: \(signer.publisher.escapingControls) (key \(signer.keyID))") }
            if !plugin.permissions.isEmpty {
                lines.append("  permissions:")
                for request in plugin.permissions {
                    let granted = sandbox.map { request.permission.isCovered(by: $0.grants[plugin.id] ?? []) ? "  granted" : "  not granted" } ?? ""
                    lines.append("    \(request.permission)\(granted)  — \(request.reason.escapingControls)")
                }
            }
            if let storage = sandbox?.storage[plugin.id] { lines.append("  data: \(storage.text)") }
            for act in sandbox?.denials[plugin.path] ?? [] { lines.append("  sandbox_denied: \(act.escapingControls)") }
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
        let (clashes, failed) = Self.clashesApart(failures, path: \.path, code: \.error.code.rawValue, loaded: Set(plugins.map(\.path)))
        if !clashes.isEmpty {
            lines.append("bare names another plugin answers (\(clashes.count)); these plugins loaded, and answer them qualified:")
            for failure in clashes {
                lines.append("  \(failure.path)")
                lines.append("    \(failure.error.code.rawValue): \(failure.error.message)")
            }
            lines.append("")
        }
        if !failed.isEmpty {
            lines.append("failed to load (\(failed.count)):")
            for failure in failed {
                lines.append("  \(failure.path)")
                lines.append("    \(failure.error.code.rawValue): \(failure.error.message)")
            }
        }
        if let sandbox {
            while lines.last == "" { lines.removeLast() }
            lines += ["", "sandbox: \(sandbox.summary)"]
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
        if !component.stories.isEmpty {
            lines.append("\(indent)  stories (graft try --story NAME):")
            for story in component.stories {
                lines.append("\(indent)    \(story.name): \(GraftValue.object(story.config).jsonText)\(story.description.map { "  — \($0)" } ?? "")")
            }
        }
        return lines
    }
}

/// Each object's members in byte order of their keys, as `GraftValue.jsonText`
/// writes them, so `jsonText` and `json.jsonText` are the same text.
extension JSONWriter {
    fileprivate mutating func plugin(_ plugin: PluginDescription, sandbox: PluginReport.Sandbox?) {
        object { writer in
            writer.member("abi", plugin.abi.description)
            writer.key("actions")
            writer.list(count: plugin.actions.count) { $0.action(plugin.actions[$1]) }
            writer.member("canUnload", plugin.canUnload)
            writer.key("components")
            writer.list(count: plugin.components.count) { $0.component(plugin.components[$1]) }
            if let storage = sandbox?.storage[plugin.id] {
                writer.key("data")
                writer.object { writer in
                    writer.member("bytes", Int(clamping: storage.bytes))
                    writer.member("folder", storage.folder)
                    writer.member("limit", Int(clamping: storage.limit))
                }
            }
            writer.member("description", plugin.description)
            writer.member("format", plugin.isWebAssembly ? "wasm32" : "native")
            writer.member("id", plugin.id)
            writer.member("mapped", plugin.isMapped)
            writer.member("name", plugin.name)
            writer.member("path", plugin.path)
            if plugin.isRemoved { writer.member("removed", true) }
            writer.key("permissions")
            writer.list(count: plugin.permissions.count) { writer, index in
                let request = plugin.permissions[index]
                writer.object { writer in
                    if let sandbox { writer.member("granted", request.permission.isCovered(by: sandbox.grants[plugin.id] ?? [])) }
                    writer.member("permission", request.permission.description)
                    writer.member("reason", request.reason)
                }
            }
            if let denials = sandbox?.denials[plugin.path] {
                writer.key("sandboxDenied")
                writer.list(count: denials.count) { $0.string(denials[$1]) }
            }
            if let signer = plugin.signer {
                writer.key("signer")
                writer.object { writer in
                    writer.member("keyID", signer.keyID)
                    writer.member("publisher", signer.publisher)
                }
            }
            writer.member("status", "loaded")
            writer.key("validators")
            writer.list(count: plugin.validators.count) { $0.validator(plugin.validators[$1]) }
            writer.member("vendor", plugin.vendor)
            writer.member("version", plugin.version)
        }
    }

    fileprivate mutating func component(_ component: ComponentContract) {
        object { writer in
            writer.key("debugConfig")
            writer.value(.object(component.debugConfig))
            writer.member("description", component.description)
            writer.key("inputs")
            writer.fields(component.inputs)
            writer.key("interactions")
            writer.list(count: component.interactions.count) { writer, index in
                let interaction = component.interactions[index]
                writer.object { writer in
                    writer.key("data")
                    writer.fields(interaction.data)
                    writer.member("description", interaction.description)
                    writer.member("name", interaction.name)
                }
            }
            writer.member("key", component.key)
            writer.member("name", component.name)
            writer.key("outputs")
            writer.members(keys: component.outputs.map(\.event)) { writer, index in
                let output = component.outputs[index]
                writer.object { writer in
                    writer.member("description", output.description ?? "")
                    writer.key("payload")
                    writer.fields(output.payload)
                }
            }
            if !component.stories.isEmpty {
                writer.key("stories")
                writer.list(count: component.stories.count) { writer, index in
                    let story = component.stories[index]
                    writer.object { writer in
                        writer.key("config")
                        writer.value(.object(story.config))
                        writer.member("description", story.description)
                        writer.member("name", story.name)
                    }
                }
            }
            writer.member("version", component.version)
        }
    }

    fileprivate mutating func validator(_ validator: ValidatorContract) {
        object { writer in
            writer.member("description", validator.description)
            writer.member("kind", validator.signature == nil ? "generic" : "native")
            writer.member("message", validator.message)
            writer.member("name", validator.name)
            writer.key("params")
            writer.list(count: validator.params.count) { writer, index in
                let param = validator.params[index]
                writer.object { writer in
                    writer.member("name", param.key)
                    writer.member("type", param.type.rawValue)
                }
            }
            writer.member("signature", validator.signature)
            writer.member("version", validator.version)
        }
    }

    fileprivate mutating func action(_ action: ActionContract) {
        object { writer in
            writer.member("description", action.description)
            writer.member("key", action.key)
            writer.key("params")
            writer.fields(action.params)
            writer.member("version", action.version)
        }
    }

    fileprivate mutating func failure(_ failure: PluginFailure) {
        object { writer in
            writer.member("code", failure.error.code.rawValue)
            // The entry concerned, when the failure is one entry's (a name clash).
            if let key = failure.error.key { writer.member("key", key) }
            writer.member("message", failure.error.message)
            writer.member("path", failure.path)
        }
    }

    /// `{"key": "type", …}`.
    private mutating func fields(_ fields: [FieldSpec]) {
        members(keys: fields.map(\.key)) { $0.string(fields[$1].type.rawValue) }
    }
}

extension PluginReport {
    /// `failures` split in two: the name clashes (a `duplicate_*` of a plugin
    /// that loaded: only a bare name is not its, it answers it qualified) and
    /// the rest (files that failed to load, and what went wrong later with a
    /// loaded one: a quarantine, a failed first map). One rule for the report
    /// and for its layout of a report read back from JSON.
    static func clashesApart<Failure>(
        _ failures: [Failure], path: (Failure) -> String?, code: (Failure) -> String?, loaded: Set<String>
    ) -> (clashes: [Failure], failed: [Failure]) {
        let clashCodes: Set<String> = [
            GraftError.Code.duplicateComponent.rawValue, GraftError.Code.duplicateValidator.rawValue, GraftError.Code.duplicateAction.rawValue,
        ]
        var clashes: [Failure] = [], failed: [Failure] = []
        for failure in failures {
            let clash = path(failure).map(loaded.contains) == true && code(failure).map(clashCodes.contains) == true
            if clash { clashes.append(failure) } else { failed.append(failure) }
        }
        return (clashes, failed)
    }
}
