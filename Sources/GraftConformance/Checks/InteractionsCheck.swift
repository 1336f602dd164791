import GraftHost

/// `interactions`: every declared interaction is answered, and what it emits
/// keeps the component's contract (declared events, payloads that match
/// their schemas: the host's own drift check says so). An interaction the
/// component cannot know must be answered false, with nothing emitted, as
/// graft.h asks of `interact`.
enum InteractionsCheck {
    static let unknownName = "graft.conformance.no-such-interaction"

    static func run(_ probe: ConformanceProbe) {
        guard let plugin = probe.plugin() else { return }
        var declaredAny = false
        for component in probe.components(of: plugin) {
            let key = ConformanceKey.component(component.contract)
            probe.step(key, "creating it from its debugConfig")
            guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe) else {
                probe.note("\(key) was not tried: it cannot be created from its debugConfig (create-from-debug-config says why)")
                continue
            }
            defer { instance.destroy() }
            probe.step(key, "interacting with '\(unknownName)', which it cannot know")
            if instance.interact(unknownName, data: nil) == true {
                probe.fail(key, expected: "interact(\"\(unknownName)\") = false: graft.h's answer for an action it does not know", got: "true")
            }
            let stray = instance.takeEvents()
            if !stray.isEmpty {
                probe.fail(key, expected: "no event for an unknown interaction", got: stray.map(\.event).joined(separator: ", "))
            }
            guard let declared = component.contract.declaredInteractions else {
                probe.note("\(key): declares no interactions (ABI 1.0 plugins cannot)")
                continue
            }
            declaredAny = declaredAny || !declared.isEmpty
            for interaction in declared { exercise(interaction, of: component, key: key, probe) }
        }
        if !declaredAny, !probe.hasFailures {
            probe.skip("no component declares interactions (ABI 1.1; a 1.0 plugin cannot); only the refusal of an unknown interaction was checked")
        }
    }

    private static func exercise(_ interaction: DeclaredInteraction, of component: RegisteredComponent, key: String, _ probe: ConformanceProbe) {
        probe.step(key, "creating it from its debugConfig for interaction '\(interaction.name)'")
        guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe) else { return }
        defer { instance.destroy() }
        let data: GraftValue? = interaction.data.isEmpty ? nil : .object(Dictionary(
            uniqueKeysWithValues: interaction.data.map { ($0.key, SampleValues.value(of: $0.type)) }))
        probe.step(key, "interacting with '\(interaction.name)'")
        // graft.h lets a component refuse data it cannot use, and a sample
        // (an empty string for a date, say) may be such data: a warning.
        if instance.interact(interaction.name, data: data) != true {
            probe.warn(
                key, expected: "interact(\"\(interaction.name)\") = true for sample data \(data.map { "\($0)" } ?? "(none)"): the component declares it",
                got: "false (fine if that data is unusable, as graft.h allows; check it answers true for real data)")
        }
        for event in instance.takeEvents() {
            for warning in event.warnings where [.undeclaredEvent, .payloadSchemaMismatch].contains(warning.code) {
                let schema = component.contract.outputs.first { $0.event == event.event }.map { output in
                    "{" + output.payload.map { "\($0.key): \($0.type.rawValue)" }.joined(separator: ", ") + "}"
                }
                probe.fail(
                    key,
                    expected: schema.map { "interaction '\(interaction.name)' to emit '\(event.event)' with a payload \($0)" }
                        ?? "interaction '\(interaction.name)' to emit only declared events (\(component.contract.outputs.map(\.event).joined(separator: ", ")))",
                    got: "'\(event.event)' with \(event.payload?.jsonText ?? "no payload") (\(warning.code.rawValue))")
            }
        }
    }
}
