import Dispatch
import GraftDebugger
import GraftHost
import GraftStories

/// One component opened on a page: a live instance created from its
/// debugConfig, whose inputs the page's controls replace, whose
/// interactions the page's buttons call, and whose events go to the action
/// log. Hot swap moves the instance to the new build (the host does, with
/// its inputs); `follow()` then renders it again, so the page keeps its
/// control values and sees the new output.
///
/// Isolated plugins run in child processes: a crash fails the call with
/// `plugin_crashed`, which the report carries as an error card, and the
/// next call re-creates the instance in a new child.
///
/// `@unchecked Sendable`: the mutable state below is only touched on
/// `work`'s serial queue, which also keeps calls on the instance in order.
final class ComponentSession: @unchecked Sendable {
    let id: String
    let instanceID: String
    let reference: ComponentReference
    private let host: GraftHost
    private let log: ActionLog
    private var size: ContainerSize
    private let work: SerialWork

    private var instance: ComponentInstance?
    private var inputs: [String: GraftValue]
    private var mediaType: MediaType
    private var sequence = 0
    /// What the story being played has seen (events, the warnings each render took): the play panel's.
    private let played = PlayRecord()

    init(id: String, reference: ComponentReference, host: GraftHost, log: ActionLog, mediaType: MediaType, size: ContainerSize) throws(GraftError) {
        self.id = id
        self.instanceID = "workbench-\(id)"
        self.host = host
        self.log = log
        self.size = size
        self.mediaType = mediaType
        let registered = try host.resolve(reference)
        self.reference = registered.reference
        self.inputs = registered.contract.debugConfig
        self.work = SerialWork(label: "graft.workbench.session.\(id)")
    }

    // MARK: What the page asks

    /// Creates the instance and renders it.
    func open() async throws -> RenderReport {
        try await work.run { self.render(.open) }
    }

    func update(inputs: [String: GraftValue]) async throws -> RenderReport {
        try await work.run {
            self.inputs = inputs
            if let instance = self.instance, !instance.isClosed {
                do throws(GraftError) {
                    try instance.update(inputs: inputs)
                } catch {
                    return self.report(.inputs, rendering: nil, error: error, warnings: instance.takeWarnings())
                }
            }
            return self.render(.inputs)
        }
    }

    func change(mediaType: MediaType) async throws -> RenderReport {
        try await work.run {
            self.mediaType = mediaType
            return self.render(.mediaType)
        }
    }

    /// Gives the component another container size: a new instance with the same inputs (a container size is fixed
    /// at creation), rendered.
    func change(size: ContainerSize) async throws -> RenderReport {
        try await work.run {
            self.size = size
            self.instance?.close()
            self.instance = nil
            return self.render(.size)
        }
    }

    /// Calls the component's `interact`; whatever it emits reaches the log.
    /// Renders again, since the interaction may have changed its state.
    func interact(_ action: String, data: GraftValue?) async throws -> RenderReport {
        try await work.run {
            guard let instance = self.liveInstance() else { return self.render(.interact) }
            let answered = instance.interact(action, data: data)
            var report = self.render(.interact)
            report.answered = answered
            return report
        }
    }

    /// Feeds `event` as if the component had emitted it (as `graft try
    /// --emit`): checked against the contract, recorded in the log with its
    /// drift warnings. Returns the warnings.
    func emit(_ event: String, payload: GraftValue?) async throws -> [GraftWarning] {
        try await work.run {
            let component = self.instance?.component ?? (try? self.host.resolve(self.reference))
            let warnings = component?.contract.warnings(forEvent: event, payload: payload, instanceID: self.instanceID) ?? []
            self.log.record(ActionLogRecord(
                pluginID: component?.pluginID, component: self.reference, instance: self.instanceID, event: event,
                warnings: warnings, detail: .event(payload: payload, origin: .injected, wiredActions: nil)))
            return warnings
        }
    }

    /// After a hot swap: the instance on the build that now provides the
    /// component (the host moved it; one left on a build that dropped the
    /// component is replaced), rendered again with the same inputs.
    func follow() async throws -> RenderReport {
        try await work.run {
            if let instance = self.instance, let current = try? self.host.resolve(self.reference),
                instance.isClosed || instance.component !== current
            {
                instance.close()
                self.instance = nil
            }
            return self.render(.swap)
        }
    }

    /// A story begins: its inputs, container size and media type, on a fresh instance (so that its state is the
    /// story's own), with nothing seen yet. Renders.
    func startPlay(inputs: [String: GraftValue], size: ContainerSize, mediaType: MediaType) async throws -> RenderReport {
        try await work.run {
            self.inputs = inputs
            self.size = size
            self.mediaType = mediaType
            self.instance?.close()
            self.instance = nil
            self.played.clear()
            return self.render(.play)
        }
    }

    /// One step of the story, as `graft test` plays it, then a render.
    func play(_ step: PlayStep, index: Int) async throws -> (StepResult, RenderReport) {
        try await work.run {
            guard let instance = self.liveInstance() else {
                let report = self.render(.play)
                let why = report.error ?? GraftError(.instanceCreateFailed, "\(self.reference) has no instance to play on.", key: self.reference.key)
                return (StepResult(index: index, step: step, failure: "\(why.code.rawValue): \(why.message)"), report)
            }
            let result = StoryStepper.perform(step, index: index, on: InstancePlay(instance: instance, mediaType: self.mediaType, record: self.played))
            self.inputs = instance.inputs
            return (result, self.render(.play))
        }
    }

    func close() {
        work.queue.async {
            self.instance?.close()
            self.instance = nil
        }
    }

    // MARK: On the queue

    /// The instance, created first when there is none (it failed before, or
    /// its build was replaced by one that dropped it).
    private func liveInstance() -> ComponentInstance? {
        if let instance, !instance.isClosed { return instance }
        instance = try? makeInstance()
        return instance
    }

    private func makeInstance() throws(GraftError) -> ComponentInstance {
        let log = self.log, played = self.played
        return try host.makeInstance(
            of: reference, id: instanceID, inputs: inputs, containerSize: size, onEvent: { event in
                log.record(event)
                played.record(event)
            })
    }

    private func render(_ reason: RenderReport.Reason) -> RenderReport {
        let instance: ComponentInstance
        if let live = self.instance, !live.isClosed {
            instance = live
        } else {
            do throws(GraftError) {
                instance = try makeInstance()
                self.instance = instance
            } catch {
                return report(reason, rendering: nil, error: error, warnings: [])
            }
        }
        do throws(GraftError) {
            let rendering = try instance.render(as: mediaType)
            return report(reason, rendering: rendering, error: nil, warnings: instance.takeWarnings(), component: instance.component)
        } catch {
            return report(reason, rendering: nil, error: error, warnings: instance.takeWarnings(), component: instance.component)
        }
    }

    private func report(
        _ reason: RenderReport.Reason, rendering: Rendering?, error: GraftError?, warnings: [GraftWarning],
        component: RegisteredComponent? = nil
    ) -> RenderReport {
        sequence += 1
        let serving = component ?? (try? host.resolve(reference))
        played.record(warnings: warnings)
        // Drift and runtime warnings of a render reach the action log too, where its "warning" filter finds them.
        if !warnings.isEmpty {
            log.record(ActionLogRecord(
                pluginID: serving?.pluginID, component: serving?.reference, instance: instanceID, warnings: warnings, detail: .warning))
        }
        return RenderReport(
            session: id, instance: instanceID, component: reference, pluginID: serving?.pluginID, sequence: sequence,
            reason: reason, inputs: inputs, rendering: rendering, error: error, warnings: warnings, contract: serving?.contract,
            size: size)
    }
}
