import CGraft

/// Checks a registration against graft.h's rules before any descriptor is
/// built, so a plugin author hears about every problem at once (through the
/// host's log, when `init` refuses the plugin) instead of the host's checker
/// finding them one at a time.
enum RegistrationCheck {
    static func problems(info: PluginInfo, registration: PluginRegistration) -> [String] {
        var problems: [String] = []
        for (field, text) in [("id", info.id), ("version", info.version), ("name", info.name)]
        where text.isEmpty {
            problems.append("PluginInfo.\(field) is empty.")
        }
        problems += registration.components.flatMap(check)
        problems += registration.validators.flatMap(check)
        problems += registration.actions.flatMap(check)
        problems += duplicates(registration.components.map { "component \"\($0.key)\" version \($0.version)" })
        problems += duplicates(registration.validators.map { "validator \"\($0.name)\" version \($0.version)" })
        problems += duplicates(registration.actions.map { "action \"\($0.key)\" version \($0.version)" })
        problems += info.permissions.flatMap(check)
        if info.permissions.count > Int(GRAFT_MAX_PERMISSIONS) {
            problems.append("\(info.permissions.count) permissions declared; graft.h allows at most \(GRAFT_MAX_PERMISSIONS).")
        }
        let stories = registration.components.reduce(0) { $0 + $1.definition.stories.count }
        if stories > Int(GRAFT_MAX_STORIES) {
            problems.append("\(stories) stories declared; graft.h allows at most \(GRAFT_MAX_STORIES).")
        }
        for (what, count) in [("components", registration.components.count),
                              ("validators", registration.validators.count),
                              ("actions", registration.actions.count)]
        where count > Int(GRAFT_MAX_DESCRIPTORS) {
            problems.append("\(count) \(what) registered; graft.h allows at most \(GRAFT_MAX_DESCRIPTORS) per factory.")
        }
        return problems
    }

    /// The rules the host's descriptor reader applies to a declared permission.
    private static func check(_ permission: PluginPermission) -> [String] {
        var problems: [String] = []
        let reason = permission.reason
        if reason.isEmpty { problems.append("A permission has no reason; say why the plugin needs it.") }
        if reason.utf8.count > 512 { problems.append("A permission's reason has \(reason.utf8.count) bytes; the most is 512.") }
        if reason.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) {
            problems.append("A permission's reason holds control characters.")
        }
        switch permission.kind {
        case .connect(let ports):
            if ports.isEmpty || ports.count > Int(GRAFT_MAX_PORTS) || ports.contains(0) {
                problems.append("networkConnections(ports:) needs 1 to \(GRAFT_MAX_PORTS) ports, none of them 0.")
            }
        case .read(let folder):
            if !folder.hasPrefix("/") || folder.utf8.count > 4096 { problems.append("readFolder(\"\(folder)\") needs an absolute path.") }
        case .anyNetwork, .dataFolder:
            break
        }
        return problems
    }

    private static func check(_ component: RegisteredComponent) -> [String] {
        let subject = "Component \"\(component.key)\" version \(component.version)"
        let definition = component.definition
        var problems = common(subject, key: component.key, what: "key", version: component.version)
        problems += fields(subject, "input", definition.inputs.keys)
        problems += fields(subject, "output", definition.outputs.keys)
        for (key, type) in definition.inputs where type == .object {
            problems.append("\(subject): input \"\(key)\" is an object; inputs may be string, number, boolean or list.")
        }
        for (event, output) in definition.outputs.sorted(by: { $0.key < $1.key }) {
            problems += fields("\(subject), output \"\(event)\"", "payload field", output.payload.keys)
        }
        problems += fields(subject, "interaction", definition.interactions.keys)
        for (name, interaction) in definition.interactions.sorted(by: { $0.key < $1.key }) {
            problems += fields("\(subject), interaction \"\(name)\"", "data field", interaction.data.keys)
        }
        problems += config(subject, "debugConfig", definition.debugConfig, inputs: definition.inputs)
        problems += fields(subject, "story", definition.stories.map(\.name))
        problems += duplicates(definition.stories.map { "\(subject): story \"\($0.name)\"" })
        for story in definition.stories {
            problems += config(subject, "story \"\(story.name)\"", story.config, inputs: definition.inputs)
        }
        return problems
    }

    /// A debugConfig or a story's config: declared inputs only, each of its type.
    private static func config(_ subject: String, _ what: String, _ config: [String: Value], inputs: [String: InputType]) -> [String] {
        config.sorted(by: { $0.key < $1.key }).compactMap { key, value in
            guard let type = inputs[key] else { return "\(subject): \(what) key \"\(key)\" is not a declared input." }
            return type.matches(value) ? nil : "\(subject): \(what) \"\(key)\" is a \(value.typeName); the input is declared \(type.name)."
        }
    }

    private static func check(_ validator: RegisteredValidator) -> [String] {
        let subject = "Validator \"\(validator.name)\" version \(validator.version)"
        var problems = common(subject, key: validator.name, what: "name", version: validator.version)
        problems += fields(subject, "param", validator.params)
        problems += duplicates(validator.params.map { "\(subject): param \"\($0)\"" })
        return problems
    }

    private static func check(_ action: RegisteredAction) -> [String] {
        let subject = "Action \"\(action.key)\" version \(action.version)"
        var problems = common(subject, key: action.key, what: "key", version: action.version)
        problems += fields(subject, "param", action.params.keys)
        return problems
    }

    private static func common(_ subject: String, key: String, what: String, version: Int) -> [String] {
        var problems: [String] = []
        if !isValidKey(key) {
            problems.append("\(subject): the \(what) must be non-empty and use only a-z, 0-9, '_', '.', '-'.")
        }
        if version < 1 || version > Int(UInt32.max) {
            problems.append("\(subject): the version must be between 1 and \(UInt32.max).")
        }
        return problems
    }

    private static func fields(_ subject: String, _ what: String, _ keys: some Collection<String>) -> [String] {
        var problems: [String] = []
        if keys.count > Int(GRAFT_MAX_FIELDS) {
            problems.append("\(subject): \(keys.count) \(what)s; graft.h allows at most \(GRAFT_MAX_FIELDS).")
        }
        for key in keys.sorted() where !isValidKey(key) {
            problems.append("\(subject): \(what) \"\(key)\" must be non-empty and use only a-z, 0-9, '_', '.', '-'.")
        }
        return problems
    }

    private static func duplicates(_ subjects: [String]) -> [String] {
        var seen: Set<String> = []
        var reported: Set<String> = []
        var problems: [String] = []
        for subject in subjects where !seen.insert(subject).inserted && reported.insert(subject).inserted {
            problems.append("\(subject.prefix(1).uppercased() + subject.dropFirst()) is registered more than once.")
        }
        return problems
    }

    /// graft.h: "non-empty, [a-z0-9_.-]".
    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5F || byte == 0x2E || byte == 0x2D
        }
    }
}
