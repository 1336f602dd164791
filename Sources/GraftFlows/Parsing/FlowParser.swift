import GraftHost

/// Builds a `FlowDocument` from parsed JSON, checking types, unknown fields
/// and the references between parts of the document as it goes. The first
/// problem stops it, with the JSON path where it is.
struct FlowParser {
    /// Editor definitions read so far, for checking instances against them.
    var definitions: [ComponentContract] = []
    var actionDefinitions: [FlowActionDefinition] = []
    /// The plugin each component definition names, by its key + version.
    var componentPlugins: [ComponentReference: String] = [:]
    /// Every screen id, read before the screens so a `go_to` can point forward.
    var screenIDs: [String] = []

    static func document(from value: GraftValue) throws(GraftError) -> FlowDocument {
        var parser = FlowParser()
        let root = try JSONNode(value: value, path: .root)
            .object(allowing: ["name", "description", "size", "components", "actions", "variables", "screens"])
        let size = try root.optional("size").map { node throws(GraftError) in try Self.size(node) }
        for node in try root.optional("components")?.list() ?? [] {
            parser.definitions.append(try parser.definition(node))
        }
        for node in try root.optional("actions")?.list() ?? [] {
            parser.actionDefinitions.append(try parser.actionDefinition(node))
        }
        let variables = try Self.variables(root.optional("variables"))
        let screenNodes = try root.required("screens").list()
        guard !screenNodes.isEmpty else { throw try root.required("screens").error("a flow needs at least one screen.") }
        parser.screenIDs = try Self.screenIDs(screenNodes)
        var screens: [FlowScreen] = []
        var instanceIDs: Set<String> = []
        for node in screenNodes {
            let screen = try parser.screen(node)
            for (index, instance) in screen.instances.enumerated() {
                guard instanceIDs.insert(instance.id).inserted else {
                    throw GraftError(
                        .invalidFlow,
                        "\(node.path.key("instances").index(index).key("id")): instance id \(GraftValueText.quoted(instance.id)) is used twice; ids are unique in the whole flow because events address instances by id.")
                }
            }
            screens.append(screen)
        }
        var document = FlowDocument(
            components: parser.definitions, actions: parser.actionDefinitions, variables: variables, screens: screens,
            size: size)
        document.componentPlugins = parser.componentPlugins
        return document
    }

    // MARK: Definitions

    private mutating func definition(_ node: JSONNode) throws(GraftError) -> ComponentContract {
        let object = try node.object(allowing: ["key", "version", "plugin", "name", "description", "inputs", "outputs"])
        let key = try Self.key(object.required("key"))
        let version = try object.optional("version")?.integer(minimum: 1) ?? 1
        if let index = definitions.firstIndex(where: { $0.key == key && $0.version == version }) {
            throw node.error("defines \(key)@\(version) again; it is already defined at $.components[\(index)].")
        }
        if let plugin = try object.optional("plugin").map { node throws(GraftError) in try Self.pluginID(node) } {
            componentPlugins[ComponentReference(key: key, version: version)] = plugin
        }
        var outputs: [OutputSpec] = []
        for (event, eventNode) in try object.optional("outputs")?.members() ?? [] {
            let output = try eventNode.object(allowing: ["description", "payload"])
            outputs.append(OutputSpec(
                event: event, description: try output.optional("description")?.string(),
                payload: try Self.fields(output.optional("payload"))))
        }
        return ComponentContract(
            key: key, version: version, name: try object.optional("name")?.string(),
            description: try object.optional("description")?.string(),
            inputs: try Self.fields(object.optional("inputs")), outputs: outputs)
    }

    private func actionDefinition(_ node: JSONNode) throws(GraftError) -> FlowActionDefinition {
        let object = try node.object(allowing: ["key", "version", "plugin", "name", "description", "params"])
        let keyNode = try object.required("key")
        let key = try Self.key(keyNode)
        if FlowAction.builtInNames.contains(key) {
            throw keyNode.error("\(GraftValueText.quoted(key)) is a built-in action; a custom action needs another key.")
        }
        if let index = actionDefinitions.firstIndex(where: { $0.key == key }) {
            throw node.error("defines the action \(GraftValueText.quoted(key)) again; it is already defined at $.actions[\(index)].")
        }
        _ = try object.optional("name")?.string()
        _ = try object.optional("description")?.string()
        return FlowActionDefinition(
            key: key, version: try object.optional("version")?.integer(minimum: 1) ?? 1,
            params: try object.optional("params").map { node throws(GraftError) in try Self.fields(node) },
            plugin: try object.optional("plugin").map { node throws(GraftError) in try Self.pluginID(node) })
    }

    // MARK: Screens and instances

    private func screen(_ node: JSONNode) throws(GraftError) -> FlowScreen {
        let object = try node.object(allowing: ["id", "name", "description", "size", "instances"])
        _ = try object.optional("name")?.string()
        _ = try object.optional("description")?.string()
        var instances: [FlowInstance] = []
        for instanceNode in try object.optional("instances")?.list() ?? [] {
            instances.append(try instance(instanceNode))
        }
        return FlowScreen(
            id: try object.required("id").string(),
            size: try object.optional("size").map { node throws(GraftError) in try Self.size(node) }, instances: instances)
    }

    private func instance(_ node: JSONNode) throws(GraftError) -> FlowInstance {
        let object = try node.object(allowing: ["id", "component", "version", "inputs", "on"])
        let id = try object.required("id").string()
        let componentNode = try object.required("component")
        let key = try Self.key(componentNode)
        let version = try object.optional("version")?.integer(minimum: 1) ?? 1
        guard let definition = definitions.first(where: { $0.key == key && $0.version == version }) else {
            let defined = definitions.filter { $0.key == key }.map { "\($0.reference)" }
            let place = object.optional("version")?.path ?? componentNode.path
            throw GraftError(
                .invalidFlow,
                "\(place): instance \(GraftValueText.quoted(id)) places \(key)@\(version), which $.components does not define\(defined.isEmpty ? "" : " (defined: \(defined.joined(separator: ", ")))"); add the editor's definition.")
        }
        let inputs = try object.optional("inputs")?.anyObject() ?? [:]
        for found in try TemplateScan.references(in: .object(inputs), at: node.path.key("inputs")) {
            if case .payload = found.reference {
                throw GraftError(
                    .invalidFlow,
                    "\(found.path): an input can bind only constants and {{variables.NAME}}; \(found.reference) exists only in actions run by an event.")
            }
        }
        var wiring: [String: [FlowAction]] = [:]
        var written: [String: [GraftValue]] = [:]
        for (event, listNode) in try object.optional("on")?.members() ?? [] {
            guard definition.output(event) != nil else {
                let declared = definition.outputs.map(\.event).sorted()
                throw listNode.error(
                    "actions are wired to \(GraftValueText.quoted(event)), which \(definition.reference) does not declare in $.components (declared: \(declared.isEmpty ? "none" : declared.joined(separator: ", "))).")
            }
            wiring[event] = try actions(listNode)
            written[event] = listNode.value.listValue ?? []
        }
        let component = componentPlugins[definition.reference].map { definition.reference.qualified(by: $0) } ?? definition.reference
        return FlowInstance(id: id, component: component, inputs: inputs, on: written, wiring: wiring)
    }

    // MARK: Small values

    /// A component or action key: what `ComponentReference` accepts.
    private static func key(_ node: JSONNode) throws(GraftError) -> String {
        let key = try node.string()
        guard ComponentReference.isValidKey(key) else {
            throw node.error("\(GraftValueText.quoted(key)) is not a key: keys use a-z, 0-9, '_', '.', '-' (at most 128 bytes); put the version in \"version\".")
        }
        return key
    }

    /// The plugin id a definition names, to qualify its key by.
    private static func pluginID(_ node: JSONNode) throws(GraftError) -> String {
        let id = try node.string()
        guard ComponentReference.isValidPluginID(id) else {
            throw node.error("\(GraftValueText.quoted(id)) is not a plugin id: ids use letters, digits, '.', '-', '_' (reverse DNS, such as dev.graft.date-picker).")
        }
        return id
    }

    /// `{name: type}` as fields sorted by name.
    private static func fields(_ node: JSONNode?) throws(GraftError) -> [FieldSpec] {
        guard let node else { return [] }
        var fields: [FieldSpec] = []
        for (name, typeNode) in try node.members() {
            fields.append(FieldSpec(key: name, type: try typeNode.valueType()))
        }
        return fields
    }

    private static func size(_ node: JSONNode) throws(GraftError) -> ContainerSize {
        let object = try node.object(allowing: ["width", "height"])
        return ContainerSize(
            width: try object.optional("width")?.number(minimum: 0) ?? 0,
            height: try object.optional("height")?.number(minimum: 0) ?? 0)
    }

    private static func variables(_ node: JSONNode?) throws(GraftError) -> [String: GraftValue] {
        guard let node else { return [:] }
        let variables = try node.anyObject()
        for name in variables.keys.sorted() where !isVariableName(name) {
            throw GraftError(
                .invalidFlow,
                "\(node.path.key(name)): \(GraftValueText.quoted(name)) is not a variable name: use letters, digits, '_', '.', '-'.")
        }
        return variables
    }

    static func isVariableName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)) }
    }

    private static func screenIDs(_ nodes: [JSONNode]) throws(GraftError) -> [String] {
        var ids: [String] = []
        for node in nodes {
            let idNode = try node.object(allowing: ["id", "name", "description", "size", "instances"]).required("id")
            let id = try idNode.string()
            if let first = ids.firstIndex(of: id) {
                throw idNode.error("screen id \(GraftValueText.quoted(id)) is already used by $.screens[\(first)].")
            }
            ids.append(id)
        }
        return ids
    }
}
