import GraftHost

extension FlowRunner {
    func apply(_ event: FlowEvent) {
        guard let slot = slots.first(where: { $0.placement.id == event.instance }) else {
            warnNotOnScreen(event.instance, what: "the event")
            return
        }
        switch event {
        case .emit(_, let name, let payload):
            let drift = slot.contract.warnings(forEvent: name, payload: payload, instanceID: slot.placement.id)
            process(name, payload: payload, from: slot, origin: .injected, drift: drift)
        case .interact(_, let action, let data):
            guard let instance = slot.instance else {
                warn(
                    .customComponentNotFound,
                    "instance '\(slot.placement.id)' is a placeholder for \(slot.placement.component); it cannot take the interaction '\(action)'.",
                    instance: slot.placement.id)
                return
            }
            let known = instance.interact(action, data: data)
            record(.interaction(InteractionRecord(
                screen: screen?.id ?? "", instance: slot.placement.id, action: action, data: data, isKnown: known)))
            collectWarnings(from: instance)
            if !known {
                warn(
                    .invalidConfig, "instance '\(slot.placement.id)' (\(instance.component.reference)) does not know the interaction '\(action)'.",
                    instance: slot.placement.id)
            }
        }
    }

    /// Processes queued events in order until none is left, the flow closes,
    /// or too many follow one another.
    func processQueuedEvents() {
        var processed = 0
        while !isClosed, let emitted = queue.popFirst() {
            processed += 1
            guard processed <= Self.eventLimit else {
                queue.removeAll()
                warn(
                    .invalidConfig,
                    "more than \(Self.eventLimit) events followed one another; the rest were dropped (do actions and renders keep triggering each other?).",
                    instance: emitted.instanceID)
                return
            }
            guard let slot = slots.first(where: { $0.placement.id == emitted.instanceID && $0.instance != nil }) else {
                warnNotOnScreen(emitted.instanceID, what: "its event '\(emitted.event)'")
                continue
            }
            process(emitted.event, payload: emitted.payload, from: slot, origin: .component, drift: emitted.warnings)
        }
    }

    /// Records the event and its drift, runs the wired actions, then moves
    /// to the next screen or refreshes bindings.
    private func process(
        _ event: String, payload: GraftValue?, from slot: ScreenSlot, origin: EventRecord.Origin, drift: [GraftWarning]
    ) {
        let actions = slot.placement.wiring[event] ?? []
        record(.event(EventRecord(
            screen: screen?.id ?? "", instance: slot.placement.id, event: event, payload: payload, origin: origin,
            wiredActions: actions.count)))
        for warning in drift { record(.warning(warning)) }
        if slot.definition.output(event) == nil, slot.contract.output(event) != nil {
            warn(
                .undeclaredEvent,
                "instance '\(slot.placement.id)' emitted '\(event)', which \(slot.contract.reference) declares but the flow's definition does not; no actions are wired to it.",
                instance: slot.placement.id)
        }
        run(actions, for: ActionTrigger(instance: slot.placement.id, event: event, payload: payload))
        settle()
    }

    /// Records the warnings an instance collected during the last call. Drift
    /// carried by events still in the queue is left out here: it is recorded
    /// right after its event, where it belongs. A warning already recorded on
    /// this visit to the screen is not repeated: every `update(inputs:)`
    /// re-checks all inputs, and one mistyped binding would otherwise warn
    /// again on each change of any variable.
    func collectWarnings(from instance: ComponentInstance) {
        var taken = instance.takeWarnings()
        for warning in queue.pendingWarnings {
            if let index = taken.firstIndex(of: warning) { taken.remove(at: index) }
        }
        for warning in taken where warningsThisVisit.insert(warning).inserted {
            record(.warning(warning))
        }
    }

    private func warnNotOnScreen(_ instance: String, what: String) {
        let here = slots.map(\.placement.id)
        warn(
            .unknownInstance,
            "instance '\(instance)' is not live on screen '\(screen?.id ?? "")' (live: \(here.isEmpty ? "none" : here.joined(separator: ", "))); \(what) was not applied.",
            instance: instance)
    }
}
