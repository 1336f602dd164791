import GraftHost

/// A component's contract for the page: like `graft list --json`'s, but with
/// inputs, outputs and payload fields as lists in declared order, since the
/// page builds its controls in that order.
enum ContractJSON {
    static func component(_ contract: ComponentContract) -> GraftValue {
        var object: [String: GraftValue] = [
            "key": .string(contract.key), "version": .number(Double(contract.version)),
            "reference": .string(contract.reference.description),
            "inputs": .list(contract.inputs.map(field)),
            "outputs": .list(contract.outputs.map { output in
                var item: [String: GraftValue] = ["event": .string(output.event), "payload": .list(output.payload.map(field))]
                if let description = output.description { item["description"] = .string(description) }
                return .object(item)
            }),
            "debugConfig": .object(contract.debugConfig),
            "interactions": .list(contract.interactions.map { interaction in
                var item: [String: GraftValue] = ["name": .string(interaction.name), "data": .list(interaction.data.map(field))]
                if let description = interaction.description { item["description"] = .string(description) }
                return .object(item)
            }),
        ]
        object["stories"] = .list(contract.stories.map { story in
            var item: [String: GraftValue] = ["name": .string(story.name), "config": .object(story.config)]
            if let description = story.description { item["description"] = .string(description) }
            return .object(item)
        })
        if let name = contract.name { object["name"] = .string(name) }
        if let description = contract.description { object["description"] = .string(description) }
        return .object(object)
    }

    static func field(_ field: FieldSpec) -> GraftValue {
        var object: [String: GraftValue] = ["key": .string(field.key), "type": .string(field.type.rawValue)]
        if let description = field.description { object["description"] = .string(description) }
        return .object(object)
    }
}

/// GraftHost's media type, named so where Hummingbird (which has a
/// `MediaType` of its own) is imported too.
typealias GraftMediaType = MediaType
