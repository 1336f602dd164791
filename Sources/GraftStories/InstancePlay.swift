import GraftHost

/// What a story has seen since it began: the events (emitted or simulated) and the warnings a target took away
/// from its instance (a workbench session drains them into each render's report). Shared with the instance's
/// `onEvent`, which may run on another thread.
public final class PlayRecord: Sendable {
    private let state = Locked<(events: [PlayedEvent], warnings: [GraftWarning])>(([], []))

    public init() {}

    public func record(_ event: EmittedEvent) {
        state.withLock { $0.events.append(PlayedEvent(event: event.event, payload: event.payload, simulated: false)) }
    }

    public func record(simulated event: String, payload: GraftValue?, warnings: [GraftWarning]) {
        state.withLock {
            $0.events.append(PlayedEvent(event: event, payload: payload, simulated: true))
            $0.warnings += warnings
        }
    }

    public func record(warnings: [GraftWarning]) {
        guard !warnings.isEmpty else { return }
        state.withLock { $0.warnings += warnings }
    }

    /// A new story begins: nothing seen yet.
    public func clear() { state.withLock { $0 = ([], []) } }

    public var events: [PlayedEvent] { state.withLock { $0.events } }
    public var warnings: [GraftWarning] { state.withLock { $0.warnings } }
}

/// A story played on a live instance: `graft test`'s (made for the story and closed by `close()`) or a workbench
/// session's (its own, kept).
public final class InstancePlay: PlayTarget {
    let instance: ComponentInstance
    let mediaType: MediaType
    let record: PlayRecord

    /// An instance made for the story, with its inputs (or the debugConfig) and container size. Errors: those of
    /// `resolve` and `makeInstance`.
    public convenience init(host: GraftHost, component: ComponentReference, story: PlayStory, instanceID: String) throws(GraftError) {
        let registered = try host.resolve(component)
        let record = PlayRecord()
        let instance = try host.makeInstance(
            of: registered.qualifiedReference, id: instanceID, inputs: story.inputs ?? registered.contract.debugConfig,
            containerSize: story.size, onEvent: { record.record($0) })
        self.init(instance: instance, mediaType: story.mediaType, record: record)
    }

    /// An instance someone else made and keeps, whose `onEvent` feeds `record`.
    public init(instance: ComponentInstance, mediaType: MediaType, record: PlayRecord) {
        self.instance = instance
        self.mediaType = mediaType
        self.record = record
    }

    public func close() { instance.close() }

    public func set(inputs: [String: GraftValue]) throws(GraftError) {
        try instance.update(inputs: instance.inputs.merging(inputs) { _, new in new })
    }

    public func interact(_ action: String, data: GraftValue?) -> GraftError? {
        let before = instance.warnings.count
        if instance.interact(action, data: data) { return nil }
        let contract = instance.component.contract
        // An isolated call that failed says why in the warnings it added (not an earlier step's); else the component
        // refused it, or does not know it.
        if let failure = instance.warnings.dropFirst(before).last(where: { [.pluginCrashed, .pluginTimeout, .pluginMemoryLimit, .pluginRestarted].contains($0.code) }) {
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
        record.record(simulated: event, payload: payload, warnings: warnings)
        return warnings
    }

    public func render() throws(GraftError) -> Rendering { try instance.render(as: mediaType) }

    public var events: [PlayedEvent] { record.events }
    public var warnings: [GraftWarning] { record.warnings + instance.warnings }
}
