import GraftSupport

/// The descriptor rules, applied to a description a child process sent (a
/// scanner's answer, a registry cache written by one): the child ran the
/// plugin's code, so the plugin chose every byte of it. A description that
/// breaks a rule the loader applies in process is refused the same way.
extension PluginDescription {
    /// Why this description could not have come from a plugin the loader
    /// accepts, one sentence each; empty when none.
    var ruleProblems: [String] {
        var problems: [String] = []
        // Labels are built only for a problem: every load runs these checks, and nearly all pass.
        func text(_ value: String?, _ what: @autoclosure () -> String, required: Bool = false, lines: Bool = false) {
            guard let value else {
                if required { problems.append("\(what()) is missing") }
                return
            }
            if required && value.isEmpty { problems.append("\(what()) is empty") }
            if value.utf8.count > 64 << 10 { problems.append("\(what()) is longer than 64 KiB") }
            let controls = value.unicodeScalars.contains { scalar in
                (scalar.value < 0x20 && !(lines && (scalar == "\n" || scalar == "\t"))) || (0x7F..<0xA0).contains(scalar.value)
            }
            if controls { problems.append("\(what()) holds control characters") }
        }
        func key(_ value: String, _ what: @autoclosure () -> String) {
            if !ComponentReference.isValidKey(value) { problems.append("\(what()) '\(value.escapingControls)' is not a key (a-z, 0-9, '_', '.', '-')") }
        }
        func number(_ value: Int, _ what: @autoclosure () -> String) {
            if value < 1 || value > Int(UInt32.max) { problems.append("\(what()) has version \(value)") }
        }
        func fields(_ fields: [FieldSpec], _ what: @autoclosure () -> String) {
            if fields.count > DescriptorReader.maximumFields { problems.append("\(what()) has \(fields.count) fields") }
            for field in fields { key(field.key, "\(what())'s field") }
        }
        text(id, "the id", required: true)
        text(self.version, "the version", required: true)
        text(self.name, "the name", required: true)
        text(vendor, "the vendor")
        text(description, "the description", lines: true)
        for (count, what) in [(components.count, "components"), (validators.count, "validators"), (actions.count, "actions")]
        where count > DescriptorReader.maximumDescriptors {
            problems.append("\(count) \(what)")
        }
        for component in components {
            func label() -> String { "component '\(component.key.escapingControls)'" }
            key(component.key, "a component")
            number(component.version, label())
            text(component.name, "\(label())'s name")
            text(component.description, "\(label())'s description", lines: true)
            fields(component.inputs, "\(label())'s inputs")
            if component.outputs.count > DescriptorReader.maximumFields { problems.append("\(label()) has \(component.outputs.count) outputs") }
            for output in component.outputs {
                key(output.event, "\(label())'s output event")
                fields(output.payload, "\(label())'s event '\(output.event.escapingControls)'")
            }
            for interaction in component.interactions {
                key(interaction.name, "\(label())'s interaction")
                fields(interaction.data, "\(label())'s interaction '\(interaction.name.escapingControls)'")
            }
            var storyNames: Set<String> = []
            for story in component.stories {
                key(story.name, "\(label())'s story")
                text(story.description, "\(label())'s story '\(story.name.escapingControls)''s description", lines: true)
                if !storyNames.insert(story.name).inserted { problems.append("\(label()) has story '\(story.name.escapingControls)' twice") }
                for (name, value) in story.config where !(component.input(name).map { $0.type.accepts(value) } ?? false) {
                    problems.append("\(label())'s story '\(story.name.escapingControls)' sets '\(name.escapingControls)', not a declared input of its type")
                }
            }
        }
        let stories = components.reduce(0) { $0 + $1.stories.count }
        if stories > DescriptorReader.maximumStories { problems.append("\(stories) stories") }
        for validator in validators {
            key(validator.name, "a validator")
            number(validator.version, "validator '\(validator.name.escapingControls)'")
            fields(validator.params, "validator '\(validator.name.escapingControls)'")
            text(validator.message, "validator '\(validator.name.escapingControls)''s message", lines: true)
        }
        for action in actions {
            key(action.key, "an action")
            number(action.version, "action '\(action.key.escapingControls)'")
            fields(action.params, "action '\(action.key.escapingControls)'")
        }
        if permissions.count > DescriptorReader.maximumPermissions { problems.append("\(permissions.count) permissions") }
        return problems
    }
}
