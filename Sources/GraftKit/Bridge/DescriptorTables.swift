import CGraft

/// Builds the C descriptor arrays of graft.h from sorted registrations, in
/// permanent memory (see ``PermanentMemory``). Index `i` of each array
/// describes element `i` of the array it was built from.
enum DescriptorTables {
    static func components(_ components: [RegisteredComponent]) -> UnsafePointer<graft_component_descriptor_t>? {
        PermanentMemory.array(components.map { component in
            let definition = component.definition
            let inputs = fields(definition.inputs)
            let outputs = definition.outputs.keys.sorted().map { event in
                let schema = definition.outputs[event]!
                let payload = fields(schema.payload)
                return graft_output_t(
                    event: PermanentMemory.string(event),
                    description: PermanentMemory.string(schema.description),
                    payload: payload.pointer, payload_count: payload.count)
            }
            let interactions = definition.interactions.keys.sorted().map { name in
                let schema = definition.interactions[name]!
                let data = fields(schema.data)
                return graft_interaction_t(
                    name: PermanentMemory.string(name),
                    description: PermanentMemory.string(schema.description),
                    data: data.pointer, data_count: data.count)
            }
            return graft_component_descriptor_t(
                key: PermanentMemory.string(component.key),
                version: UInt32(component.version),
                name: PermanentMemory.string(definition.name),
                description: PermanentMemory.string(definition.description),
                inputs: inputs.pointer, input_count: inputs.count,
                outputs: PermanentMemory.array(outputs), output_count: UInt32(outputs.count),
                debug_config: PermanentMemory.string(JSONText.encode(.object(definition.debugConfig))),
                interactions: PermanentMemory.array(interactions), interaction_count: UInt32(interactions.count))
        })
    }

    /// Every component's stories, in component order.
    static func stories(_ components: [RegisteredComponent]) -> [graft_story_t] {
        components.flatMap { component in
            component.definition.stories.map { story in
                graft_story_t(
                    component: PermanentMemory.string(component.key), version: UInt32(component.version),
                    name: PermanentMemory.string(story.name), description: PermanentMemory.string(story.description),
                    config: PermanentMemory.string(JSONText.encode(.object(story.config))))
            }
        }
    }

    static func validators(_ validators: [RegisteredValidator]) -> UnsafePointer<graft_validator_descriptor_t>? {
        PermanentMemory.array(validators.map { validator in
            // Generic params arrive as strings, so they are declared as strings, in order.
            let params = validator.params.map {
                graft_field_t(key: PermanentMemory.string($0), type: GRAFT_TYPE_STRING, description: nil)
            }
            return graft_validator_descriptor_t(
                name: PermanentMemory.string(validator.name),
                version: UInt32(validator.version),
                description: PermanentMemory.string(validator.description),
                kind: GRAFT_VALIDATOR_GENERIC,
                params: PermanentMemory.array(params), param_count: UInt32(params.count),
                message: PermanentMemory.string(validator.message),
                signature: nil, function: nil,
                validate: ValidatorBridge.function)
        })
    }

    static func actions(_ actions: [RegisteredAction]) -> UnsafePointer<graft_action_descriptor_t>? {
        PermanentMemory.array(actions.map { action in
            let params = fields(action.params)
            return graft_action_descriptor_t(
                key: PermanentMemory.string(action.key),
                version: UInt32(action.version),
                name: PermanentMemory.string(action.name),
                description: PermanentMemory.string(action.description),
                params: params.pointer, param_count: params.count,
                invoke: ActionBridge.function)
        })
    }

    /// Fields sorted by key.
    private static func fields(_ types: [String: InputType]) -> (pointer: UnsafePointer<graft_field_t>?, count: UInt32) {
        let fields = types.keys.sorted().map { key in
            graft_field_t(key: PermanentMemory.string(key), type: types[key]!.tag, description: nil)
        }
        return (PermanentMemory.array(fields), UInt32(fields.count))
    }
}
