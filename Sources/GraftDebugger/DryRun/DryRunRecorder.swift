import GraftFlows
import GraftHost

/// Collects what happens to one sandbox instance. A component may emit from
/// any thread while the instance lives, so everything is behind a lock.
final class DryRunRecorder: Sendable {
    private let instanceID: String
    private let placement: WiredPlacement?
    private let variables: [String: GraftValue]
    private let state = Locked(State())

    private struct State: Sendable {
        /// What the sandbox is doing now, for `DryRunRecord.Entry.emitted(during:)`.
        var during = "create"
        var records: [DryRunRecord] = []
    }

    /// The built-in actions whose fields are their params; any other name
    /// is a custom action, whose params are in `params`.
    private static let builtIns: Set<String> = ["set_variable", "go_to", "validate", "track", "close"]

    init(instanceID: String, placement: WiredPlacement?, variables: [String: GraftValue]) {
        self.instanceID = instanceID
        self.placement = placement
        self.variables = variables
    }

    var records: [DryRunRecord] { state.withLock { $0.records } }

    func begin(_ during: String) {
        state.withLock { $0.during = during }
    }

    /// The handler for `makeInstance(onEvent:)`.
    func componentEmitted(_ event: EmittedEvent) {
        record(event: event.event, payload: event.payload, origin: .component, warnings: event.warnings)
    }

    func simulated(event: String, payload: GraftValue?, warnings: [GraftWarning]) {
        record(event: event, payload: payload, origin: .simulated, warnings: warnings)
    }

    /// Records the event, then each action the flow wires to it.
    private func record(event: String, payload: GraftValue?, origin: DryRunRecord.Origin, warnings: [GraftWarning]) {
        let wired = wouldRun(event: event, payload: payload)
        state.withLock { state in
            state.records.append(DryRunRecord(
                instance: instanceID, entry: .emitted(event: event, payload: payload, origin: origin, during: state.during),
                warnings: warnings))
            state.records += wired
        }
    }

    private func wouldRun(event: String, payload: GraftValue?) -> [DryRunRecord] {
        guard let actions = placement?.on[event] else { return [] }
        let templates = TemplateResolver(variables: variables, payload: payload)
        return actions.map { action in
            let name = action["action"]?.stringValue ?? "?"
            let written: GraftValue
            if Self.builtIns.contains(name) {
                written = .object((action.objectValue ?? [:]).filter { $0.key != "action" })
            } else {
                written = action["params"] ?? .object([:])
            }
            let (params, missing) = templates.resolve(written)
            let warnings = missing.map { reference -> GraftWarning in
                if case .payload = reference {
                    return GraftWarning(
                        .payloadSchemaMismatch,
                        "instance '\(instanceID)': \(name) uses \(reference), but the '\(event)' payload has no such field; it would resolve to null.",
                        instanceID: instanceID)
                }
                return GraftWarning(
                    .undeclaredVariable,
                    "instance '\(instanceID)': \(name) uses \(reference), which is not a flow variable; it would resolve to null.",
                    instanceID: instanceID)
            }
            return DryRunRecord(instance: instanceID, entry: .wouldRun(action: name, params: params, event: event), warnings: warnings)
        }
    }
}
