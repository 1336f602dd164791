import GraftHost


/// A story played on an instance made for it: `graft test`'s target. The instance is created with the story's
/// inputs (or the debugConfig) and container size, and closed by `close()`.
public final class InstancePlay: PlayTarget {
    let instance: ComponentInstance
    let mediaType: MediaType
    private let seen: Locked<[PlayedEvent]>
    private var simulatedWarnings: [GraftWarning] = []

    /// Errors: those of `resolve` and `makeInstance`.
    public init(host: GraftHost, component: ComponentReference, story: PlayStory, instanceID: String) throws(GraftError) {
        let registered = try host.resolve(component)
        let seen = Locked<[PlayedEvent]>([])
        self.seen = seen
        mediaType = story.mediaType
        instance = try host.makeInstance(
            of: registered.qualifiedReference, id: instanceID, inputs: story.inputs ?? registered.contract.debugConfig,
            containerSize: story.size,
            onEvent: { event in seen.withLock { $0.append(PlayedEvent(event: event.event, payload: event.payload, simulated: false)) } })
    }

    public func close() { instance.close() }

    public func set(inputs: [String: GraftValue]) throws(GraftError) {
        try instance.update(inputs: instance.inputs.merging(inputs) { _, new in new })
    }

    public func interact(_ action: String, data: GraftValue?) -> GraftError? {
        if instance.interact(action, data: data) { return nil }
        let contract = instance.component.contract
        // An isolated call that failed says why in the warnings; else the component refused it, or does not know it.
        if let failure = instance.warnings.last(where: { [.pluginCrashed, .pluginTimeout, .pluginMemoryLimit, .pluginRestarted].contains($0.code) }) {
            return GraftError(failure.code, failure.message, key: contract.key)
        }
        let declared = contract.interactions.map(\.name)
        if !declared.contains(action) {
            let known = declared.isEmpty ? "" : "; it declares \(declared.joined(separator: ", "))"
            return GraftError(.unknownInteraction, "\(contract.key)@\(contract.version) does not take the interaction '\(action)'\(known).", key: contract.key)
        }
        return GraftError(.interactionRefused, "\(contract.key)@\(contract.version) refused the interaction '\(action)' with that data.", key: contract.key)
    }

    public func simulate(event: String, payload: GraftValue?) -> [GraftWarning] {
        let warnings = instance.component.contract.warnings(forEvent: event, payload: payload, instanceID: instance.id)
        simulatedWarnings += warnings
        seen.withLock { $0.append(PlayedEvent(event: event, payload: payload, simulated: true)) }
        return warnings
    }

    public func render() throws(GraftError) -> Rendering { try instance.render(as: mediaType) }

    public var events: [PlayedEvent] { seen.withLock { $0 } }
    public var warnings: [GraftWarning] { instance.warnings + simulatedWarnings }
}
