import GraftHost

extension FlowRunner {
    /// Creates and renders every instance of `screen`; a component that
    /// cannot be created gets a placeholder and the rest still render.
    func enter(_ screen: FlowScreen) {
        self.screen = screen
        warningsThisVisit = []
        let size = containerSizeOverride ?? screen.size ?? flow.size ?? .unbounded
        slots = []
        for placement in screen.instances {
            slots.append(makeSlot(for: placement, size: size))
        }
    }

    /// Closes the current screen's instances.
    func leaveScreen() {
        for slot in slots { slot.instance?.close() }
        slots = []
    }

    /// After a list of actions: follow a pending `go_to`, or update the
    /// instances whose bound variables changed.
    func settle() {
        guard !isClosed else { return }
        if let target = pendingScreen {
            pendingScreen = nil
            navigate(to: target)
        } else {
            refreshBindings()
        }
    }

    func navigate(to id: String) {
        // The document guarantees every go_to target exists.
        guard let target = flow.screen(id) else { return }
        let from = screen?.id ?? ""
        leaveScreen()
        record(.navigation(NavigationRecord(from: from, to: id)))
        enter(target)
    }

    func closeFlow() {
        leaveScreen()
        queue.removeAll()
        isClosed = true
        record(.close(screen: screen?.id ?? ""))
    }

    private func makeSlot(for placement: FlowInstance, size: ContainerSize) -> ScreenSlot {
        // Every placement has a definition (the document checks it); the bare
        // contract is only a fallback that keeps this total.
        let definition = flow.definition(of: placement.component)
            ?? ComponentContract(key: placement.component.key, version: placement.component.version)
        let inputs = resolveInputs(of: placement, warnAboutMissing: true)
        do {
            let instance = try host.makeInstance(
                of: placement.component, id: placement.id, inputs: inputs, containerSize: size, onEvent: queue.handler)
            collectWarnings(from: instance)
            let slot = ScreenSlot(placement: placement, definition: definition, instance: instance, boundInputs: inputs)
            render(slot, reason: .enter)
            return slot
        } catch {
            warn(error.code, "instance '\(placement.id)': \(error.message) A placeholder is shown instead.", instance: placement.id)
            record(.render(RenderRecord(
                screen: screen?.id ?? "", instance: placement.id, component: placement.component, reason: .enter,
                rendering: Placeholder.rendering(for: placement.component, reason: error, as: mediaType), isPlaceholder: true)))
            return ScreenSlot(placement: placement, definition: definition, instance: nil, boundInputs: inputs)
        }
    }

    private func render(_ slot: ScreenSlot, reason: RenderRecord.Reason) {
        guard let instance = slot.instance else { return }
        do {
            let rendering = try instance.render(as: mediaType)
            collectWarnings(from: instance)
            record(.render(RenderRecord(
                screen: screen?.id ?? "", instance: slot.placement.id, component: slot.placement.component, reason: reason,
                rendering: rendering, isPlaceholder: false)))
        } catch {
            collectWarnings(from: instance)
            warn(error.code, "\(error.message) A placeholder is shown instead.", instance: slot.placement.id)
            record(.render(RenderRecord(
                screen: screen?.id ?? "", instance: slot.placement.id, component: slot.placement.component, reason: reason,
                rendering: Placeholder.rendering(for: slot.placement.component, reason: error, as: mediaType),
                isPlaceholder: true)))
        }
    }

    /// Renders every live instance of the current screen again and records
    /// it, for example after a hot swap moved them to a new build.
    public func rerender() {
        guard !isClosed else { return }
        defer { observer?.flowStepFinished() }
        for slot in slots { render(slot, reason: .refresh) }
    }

    /// Gives new inputs to the instances whose bindings resolve differently
    /// now, and re-renders them.
    private func refreshBindings() {
        for index in slots.indices {
            guard let instance = slots[index].instance else { continue }
            // Missing variables were reported when the screen was entered.
            let inputs = resolveInputs(of: slots[index].placement, warnAboutMissing: false)
            guard inputs != slots[index].boundInputs else { continue }
            do {
                try instance.update(inputs: inputs)
                slots[index].boundInputs = inputs
                collectWarnings(from: instance)
                render(slots[index], reason: .update)
            } catch {
                collectWarnings(from: instance)
                warn(error.code, "instance '\(slots[index].placement.id)' kept its old inputs: \(error.message)", instance: slots[index].placement.id)
            }
        }
    }

    private func resolveInputs(of placement: FlowInstance, warnAboutMissing: Bool) -> [String: GraftValue] {
        let resolver = TemplateResolver(variables: variables, payload: nil)
        let (value, missing) = resolver.resolve(.object(placement.inputs))
        if warnAboutMissing {
            for reference in missing {
                warn(
                    .invalidConfig,
                    "instance '\(placement.id)' binds \(reference), which is not a flow variable; it resolved to null.",
                    instance: placement.id)
            }
        }
        return value.objectValue ?? [:]
    }
}
