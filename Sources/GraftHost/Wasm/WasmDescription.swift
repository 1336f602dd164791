import GraftSupport

#if WebAssembly
/// A WebAssembly plugin's description: the JSON its `graft_entry` export
/// writes (docs/WasmABI.md, "The description"), read into the same
/// `PluginDescription` a `.so`'s descriptors make and held to the same rules
/// (`ruleProblems`). The guest chose every byte, so every field is checked
/// for its type and nothing unknown is ignored silently.
struct WasmDescription {
    /// The WebAssembly ABI this host implements; a guest names the one it was
    /// built against, and loads when the major matches and its minor is no newer.
    static let abi = ABIVersion(major: 1, minor: 0)

    let path: String
    private var problems: [String] = []

    init(path: String) { self.path = path }

    /// The description in `json`, or an `invalid_descriptor` error naming the file and the first problem.
    static func read(_ json: String, path: String) throws(GraftError) -> PluginDescription {
        let root: GraftValue
        do {
            root = try GraftValue(json: json)
        } catch {
            throw GraftError(.invalidDescriptor, "\(path): graft_entry wrote no JSON description: \(error.message)", path: path, symbol: "graft_entry")
        }
        var reader = WasmDescription(path: path)
        let described = reader.description(root)
        if let first = reader.problems.first { throw GraftError(.invalidDescriptor, "\(path): \(first).", path: path, symbol: "graft_entry") }
        guard let described else { throw GraftError(.invalidDescriptor, "\(path): the description is not an object.", path: path, symbol: "graft_entry") }
        if let first = described.ruleProblems.first {
            throw GraftError(.invalidDescriptor, "\(path): \(first).", path: path, symbol: "graft_entry")
        }
        return described
    }

    private mutating func description(_ root: GraftValue) -> PluginDescription? {
        guard let object = object(root, "the description", keys: ["abi", "id", "version", "name", "vendor", "description", "components", "validators", "actions", "permissions"])
        else { return nil }
        let abiText = string(object["abi"], "the description's abi", required: true) ?? ""
        let parts = abiText.split(separator: ".").map { Int($0) }
        guard parts.count == 2, let major = parts[0], let minor = parts[1] else {
            if problems.isEmpty { problems.append("the description's abi '\(abiText)' is not MAJOR.MINOR") }
            return nil
        }
        let abi = ABIVersion(major: major, minor: minor)
        guard abi.isLoadable(by: Self.abi) else {
            problems.append("it was built for the WebAssembly ABI \(abi); this host implements \(Self.abi)")
            return nil
        }
        let components = list(object["components"], "components").compactMap { component($0) }
        let validators = list(object["validators"], "validators").compactMap { validator($0) }
        let actions = list(object["actions"], "actions").compactMap { action($0) }
        duplicates(components.map(\.reference), "component")
        duplicates(validators.map(\.reference), "validator")
        duplicates(actions.map(\.reference), "action")
        var described = PluginDescription(
            id: string(object["id"], "the id", required: true) ?? "", version: string(object["version"], "the version", required: true) ?? "",
            name: string(object["name"], "the name", required: true) ?? "", vendor: string(object["vendor"], "the vendor"),
            description: string(object["description"], "the description's description"), path: path, imagePath: path, abi: abi,
            canUnload: true, components: components, validators: validators, actions: actions)
        described.isWebAssembly = true
        described.permissions = permissions(object["permissions"])
        return described
    }

    /// What it asks its host for, each with a reason, as `.so` plugins declare
    /// them (graft.h's `graft.permissions/1`), in their text form. The network
    /// is refused: WASI preview 1 cannot open a connection, so granting it would give nothing.
    private mutating func permissions(_ value: GraftValue?) -> [PermissionRequest] {
        let items = list(value, "permissions")
        guard items.count <= DescriptorReader.maximumPermissions else {
            problems.append("it declares \(items.count) permissions; the most is \(DescriptorReader.maximumPermissions)")
            return []
        }
        var requests: [PermissionRequest] = []
        for (index, item) in items.enumerated() {
            let label = "permission #\(index)"
            guard let object = object(item, label, keys: ["permission", "reason"]),
                let text = string(object["permission"], "\(label)'s permission", required: true),
                let reason = string(object["reason"], "\(label)'s reason", required: true)
            else { continue }
            guard let permission = Permission(text), text.utf8.count <= 4096, text == text.escapingControls else {
                problems.append("\(label) is '\(text.escapingControls)'; a permission is data, read:/FOLDER, network:PORTS or network:any")
                continue
            }
            guard !reason.isEmpty, reason.utf8.count <= 512, reason == reason.escapingControls else {
                problems.append("\(label) has no reason, one longer than 512 bytes, or control characters in it; say why the plugin needs it")
                continue
            }
            switch permission {
            case .connect, .anyNetwork:
                problems.append("\(label) asks for \(permission); a WebAssembly plugin has no network (WASI preview 1 cannot connect)")
            case .dataFolder, .read:
                let request = PermissionRequest(permission, reason: reason)
                if !requests.contains(request) { requests.append(request) }
            }
        }
        return requests
    }

    private mutating func component(_ value: GraftValue) -> ComponentContract? {
        let keys: Set<String> = ["key", "version", "name", "description", "inputs", "outputs", "interactions", "debugConfig", "stories"]
        guard let object = object(value, "a component", keys: keys), let key = string(object["key"], "a component's key", required: true) else { return nil }
        let label = "component '\(key)'"
        let inputs = fields(object["inputs"], "\(label)'s inputs")
        let outputs = list(object["outputs"], "\(label)'s outputs").compactMap { output -> OutputSpec? in
            guard let output = self.object(output, "an output of \(label)", keys: ["event", "description", "payload"]),
                let event = string(output["event"], "an output's event of \(label)", required: true)
            else { return nil }
            return OutputSpec(event: event, description: string(output["description"], "event '\(event)''s description"),
                payload: fields(output["payload"], "event '\(event)''s payload"))
        }
        let interactions = list(object["interactions"], "\(label)'s interactions").compactMap { interaction -> InteractionSpec? in
            guard let interaction = self.object(interaction, "an interaction of \(label)", keys: ["name", "description", "data"]),
                let name = string(interaction["name"], "an interaction's name of \(label)", required: true)
            else { return nil }
            return InteractionSpec(name: name, description: string(interaction["description"], "interaction '\(name)''s description"),
                data: fields(interaction["data"], "interaction '\(name)''s data"))
        }
        let debugConfig = config(object["debugConfig"], "\(label)'s debugConfig", inputs: inputs)
        let stories = list(object["stories"], "\(label)'s stories").compactMap { story -> StorySpec? in
            guard let story = self.object(story, "a story of \(label)", keys: ["name", "description", "config"]),
                let name = string(story["name"], "a story's name of \(label)", required: true)
            else { return nil }
            return StorySpec(name: name, description: string(story["description"], "story '\(name)''s description"), config: self.config(story["config"], "story '\(name)''s config", inputs: inputs))
        }
        return ComponentContract(
            key: key, version: version(object["version"], label), name: string(object["name"], "\(label)'s name"),
            description: string(object["description"], "\(label)'s description"), inputs: inputs,
            outputs: outputs.sorted { $0.event < $1.event }, debugConfig: debugConfig, interactions: interactions, stories: stories)
    }

    private mutating func validator(_ value: GraftValue) -> ValidatorContract? {
        guard let object = object(value, "a validator", keys: ["name", "version", "description", "params", "message"]),
            let name = string(object["name"], "a validator's name", required: true)
        else { return nil }
        let label = "validator '\(name)'"
        return ValidatorContract(
            name: name, version: version(object["version"], label), description: string(object["description"], "\(label)'s description"),
            kind: .generic, params: fields(object["params"], "\(label)'s params"), message: string(object["message"], "\(label)'s message"))
    }

    private mutating func action(_ value: GraftValue) -> ActionContract? {
        guard let object = object(value, "an action", keys: ["key", "version", "name", "description", "params"]),
            let key = string(object["key"], "an action's key", required: true)
        else { return nil }
        let label = "action '\(key)'"
        return ActionContract(
            key: key, version: version(object["version"], label), name: string(object["name"], "\(label)'s name"),
            description: string(object["description"], "\(label)'s description"), params: fields(object["params"], "\(label)'s params"))
    }

    // MARK: Typed fields

    private mutating func object(_ value: GraftValue?, _ what: String, keys: Set<String>) -> [String: GraftValue]? {
        guard case .object(let object) = value else {
            problems.append("\(what) is not a JSON object")
            return nil
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            problems.append("\(what) has the field '\(unknown.escapingControls)', which the WebAssembly ABI \(Self.abi) does not define")
        }
        return object
    }

    private mutating func string(_ value: GraftValue?, _ what: String, required: Bool = false) -> String? {
        switch value {
        case .string(let text): return text
        case nil: if required { problems.append("\(what) is missing") }
        default: problems.append("\(what) is not a string")
        }
        return nil
    }

    private mutating func list(_ value: GraftValue?, _ what: String) -> [GraftValue] {
        switch value {
        case .list(let items): return items
        case nil: return []
        default:
            problems.append("\(what) is not a list")
            return []
        }
    }

    /// A version: a whole number, 1 when absent.
    private mutating func version(_ value: GraftValue?, _ label: String) -> Int {
        guard let value else { return 1 }
        guard case .number(let number) = value, number.rounded() == number, number >= 1, number <= Double(UInt32.max) else {
            problems.append("\(label)'s version is not a whole number from 1")
            return 1
        }
        return Int(number)
    }

    private mutating func fields(_ value: GraftValue?, _ what: String) -> [FieldSpec] {
        list(value, what).compactMap { field in
            guard let field = object(field, "a field of \(what)", keys: ["key", "type", "description"]),
                let key = string(field["key"], "a field's key of \(what)", required: true),
                let typeName = string(field["type"], "field '\(key)''s type of \(what)", required: true)
            else { return nil }
            guard let type = ValueType(rawValue: typeName) else {
                problems.append("field '\(key)' of \(what) has the type '\(typeName.escapingControls)'; types are \(ValueType.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            return FieldSpec(key: key, type: type, description: string(field["description"], "field '\(key)''s description"))
        }
    }

    /// Sample inputs: an object whose every member is a declared input of its type.
    private mutating func config(_ value: GraftValue?, _ what: String, inputs: [FieldSpec]) -> [String: GraftValue] {
        guard let value else { return [:] }
        guard case .object(let config) = value else {
            problems.append("\(what) is not a JSON object")
            return [:]
        }
        for (name, sample) in config.sorted(by: { $0.key < $1.key }) where !(inputs.first { $0.key == name }.map { $0.type.accepts(sample) } ?? false) {
            problems.append("\(what) sets '\(name.escapingControls)', which is not a declared input of its type")
        }
        return config
    }

    private mutating func duplicates(_ references: [ComponentReference], _ kind: String) {
        var seen: Set<ComponentReference> = []
        for reference in references where !seen.insert(reference).inserted {
            problems.append("it declares \(kind) '\(reference)' twice")
        }
    }
}
#endif
