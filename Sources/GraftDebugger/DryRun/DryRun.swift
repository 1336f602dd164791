import GraftFlows
import GraftHost

/// A dry run: renders a component from its debugConfig (or any inputs),
/// recording instead of acting (not the kernel sandbox plugins run in;
/// that is GraftHost's `SandboxSettings`): every event the instance emits, every
/// event the request simulates, and, given a flow, every action wired to
/// those events, each with its warnings. Nothing wired is executed: no
/// variable changes, no validator or custom action runs, no navigation.
///
///     let dryRun = DryRun(host: host)
///     let result = try dryRun.run(DryRunRequest(
///         component: ComponentReference(key: "date_picker", version: 2),
///         steps: [.interact(action: "select", data: ["date": "2026-12-24"])]))
///     print(result.text)
///
/// The instance is a real one, created through the host like any other
/// (so plugin code does run: create, interactions, render) and closed
/// before `run` returns.
public struct DryRun: Sendable {
    public let host: GraftHost
    public let flow: FlowWiring?

    public init(host: GraftHost, flow: FlowWiring? = nil) {
        self.host = host
        self.flow = flow
    }

    /// Errors: those of `host.resolve` and `makeInstance`; `render_failed`;
    /// `unknown_interaction` for an interaction the component does not know, `invalid_config` for an
    /// instance that places another component; `unknown_instance` for an
    /// instance the flow does not place.
    public func run(_ request: DryRunRequest) throws(GraftError) -> DryRunResult {
        let registered = try host.resolve(request.component)
        let placement = try placement(for: request, placing: registered.reference)
        let variables = flow?.document.variables ?? [:]
        var sandboxWarnings: [GraftWarning] = []

        var inputs = request.inputs ?? registered.contract.debugConfig
        if request.inputs == nil, let placement {
            let (resolved, missing) = TemplateResolver(variables: variables).resolve(.object(placement.inputs))
            inputs = resolved.objectValue ?? [:]
            sandboxWarnings += missing.map { reference in
                GraftWarning(
                    .undeclaredVariable, "instance '\(placement.id)' binds \(reference), which is not a flow variable; it resolved to null.",
                    instanceID: placement.id)
            }
        }

        let instanceID = placement?.id ?? "sandbox"
        // The instance is made by its qualified name; a bare one the user gave may be ambiguous.
        if let ambiguous = host.ambiguity(of: request.component, answeredBy: registered, instanceID: instanceID) {
            sandboxWarnings.append(ambiguous)
        }
        let recorder = DryRunRecorder(instanceID: instanceID, placement: placement, variables: variables)
        let instance = try host.makeInstance(
            of: registered.qualifiedReference, id: instanceID, inputs: inputs, containerSize: request.containerSize,
            onEvent: { recorder.componentEmitted($0) })
        defer { instance.close() }

        for step in request.steps {
            switch step {
            case .interact(let action, let data):
                recorder.begin("interact \(action)")
                guard instance.interact(action, data: data) else {
                    // An isolated call that failed says why in the warnings; else the component refused the name.
                    if let failure = instance.warnings.last(where: { [.pluginCrashed, .pluginTimeout, .pluginMemoryLimit, .pluginRestarted].contains($0.code) }) {
                        throw GraftError(failure.code, failure.message, key: registered.contract.key)
                    }
                    let declared = registered.contract.interactions.map(\.name)
                    if !declared.isEmpty, !declared.contains(action) {
                        throw GraftError(
                            .unknownInteraction,
                            "\(registered.reference) does not know the interaction '\(action)'; it declares \(declared.joined(separator: ", ")).\(NearMiss.hint(for: action, among: declared))",
                            key: registered.contract.key)
                    }
                    guard declared.contains(action) else {
                        throw GraftError(
                            .unknownInteraction, "\(registered.reference) does not know the interaction '\(action)'.",
                            key: registered.contract.key)
                    }
                    // The plugin's own reason (a warn before answering false), when it gave one.
                    let reason = instance.warnings.last(where: { $0.code != .interactionRefused })
                        .map { " (\($0.code.rawValue): \($0.message))" } ?? ""
                    throw GraftError(
                        .interactionRefused, "\(registered.reference) refused the interaction '\(action)' with that data\(reason).",
                        key: registered.contract.key)
                }
            case .emit(let event, let payload):
                recorder.begin("emit")
                let warnings = instance.component.contract.warnings(forEvent: event, payload: payload, instanceID: instanceID)
                sandboxWarnings += warnings
                recorder.simulated(event: event, payload: payload, warnings: warnings)
            }
        }
        recorder.begin("render")
        let rendering = try instance.render(as: request.mediaType)

        let records = recorder.records
        for record in records {
            if case .wouldRun = record.entry { sandboxWarnings += record.warnings }
        }
        let component = instance.component
        return DryRunResult(
            component: component.reference, pluginID: component.pluginID, pluginPath: component.pluginPath,
            instance: instanceID, inputs: inputs, rendering: rendering, warnings: instance.warnings + sandboxWarnings,
            records: records)
    }

    private func placement(
        for request: DryRunRequest, placing reference: ComponentReference
    ) throws(GraftError) -> WiredPlacement? {
        guard let id = request.instance else { return nil }
        guard let flow else {
            throw GraftError(.invalidConfig, "instance '\(id)' was asked for, but the dry run has no flow to find it in.", key: id)
        }
        let placement = try flow.placement(id)
        // The same component, however either names it (bare or by its plugin).
        guard placement.component.bare == reference.bare else {
            throw GraftError(
                .invalidConfig, "instance '\(id)' places \(placement.component), not \(reference).", key: placement.component.key)
        }
        return placement
    }
}
