import CGraft

/// An instance whose plugin runs in a runner child: each call is a request
/// on the runner's channel. This file holds both ends of every instance call
/// (create, render, interact, update, state, resize, destroy): what the host
/// writes and reads here, what the child reads and answers in the
/// `RunnerService.Server` extension below, so one cannot change without the
/// other in sight. The frame format and its version rule are in `WireFormat.swift`.
///
/// When the runner's process dies, the call that killed it fails
/// (`plugin_crashed`, `plugin_timeout`); the next call creates the instance
/// again on a new process from its last inputs, with a `plugin_restarted`
/// warning (its state is lost).
final class RunnerInstance: InstanceSide {
    let runner: PluginRunner
    let component: RegisteredComponent
    let context: InstanceContext
    /// The instance in the runner's current process.
    private(set) var instance: PluginRunner.Instance
    /// What it is created again from when its process restarts.
    private var inputs: [String: GraftValue]
    /// A render sent with the create (see `RunnerPrefetch.swift`): the request's id and the media type it asked for.
    var prefetch: (id: UInt32, mediaType: MediaType)?
    /// Whether a call has been made since the create.
    var called = false
    /// How the render sent with the create failed (its process died or hung;
    /// the instance was created again on a new one): what the first call, if
    /// a render, reports.
    var firstRenderFailure: GraftError?

    init(
        runner: PluginRunner, component: RegisteredComponent, context: InstanceContext, instance: PluginRunner.Instance,
        inputs: [String: GraftValue]
    ) {
        self.runner = runner
        self.component = component
        self.context = context
        self.instance = instance
        self.inputs = inputs
    }

    /// The create request and its answer; with `renderingAhead`, the id of the render sent behind it.
    static func create(
        on runner: PluginRunner, component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext,
        renderingAhead: MediaType?
    ) throws(GraftError) -> (PluginRunner.Instance, prefetchID: UInt32?) {
        var follower: (kind: Wire.Kind, payload: [UInt8])?
        if let renderingAhead {
            var writer = WireWriter()
            writer.u32(Wire.justCreated)
            writer.string(renderingAhead.rawValue)
            follower = (.render, writer.bytes)
        }
        var what = CallName("create", of: component.contract.reference, instance: context.instanceID)
        what.withFirstRender = follower != nil
        let sent = try runner.call(.create, plugin: component.plugin, what: what, context: context, then: follower) { writer, slot in
            writeCreate(&writer, slot: slot, contract: component.contract, inputs: inputs, size: context.containerSize)
        }
        var answer = sent.answer
        guard answer.kind == .created, let number = try? answer.reader.u32() else {
            if let followerID = sent.followerID { runner.forget(followerID) }
            throw GraftError(.instanceCreateFailed, "the runner of \(component.pluginPath) answered create with \(answer.kind).")
        }
        context.record((try? answer.reader.warnings(instanceID: context.instanceID)) ?? [])
        let instance = PluginRunner.Instance(generation: sent.generation, number: number)
        runner.attach(context, to: instance)
        return (instance, sent.followerID)
    }

    /// A create request's payload: the plugin's slot in the child, the
    /// component, its inputs and its container's size.
    static func writeCreate(
        _ writer: inout WireWriter, slot: UInt32, contract: ComponentContract, inputs: [String: GraftValue], size: ContainerSize
    ) {
        writer.u32(slot)
        writer.string(contract.key)
        writer.u32(UInt32(contract.version))
        writer.value(.object(inputs))
        writer.size(size)
    }

    /// One request about this instance, creating it again first if its
    /// process restarted since.
    private func call(
        _ kind: Wire.Kind, _ what: CallName, deadline: Duration? = nil, rendering: MediaType? = nil,
        _ payload: (inout WireWriter) -> Void
    ) throws(GraftError) -> PluginRunner.Answer {
        let id = context.instanceID
        var name = what
        name.component = component.contract.reference
        name.instanceID = id
        if let answer = try answerSentAhead(rendering: rendering, name: name) { return answer }
        for attempt in 0..<2 {
            do throws(GraftError) {
                let instance = self.instance
                let (answer, _, _) = try runner.call(kind, plugin: component.plugin, what: name, instance: instance, deadline: deadline) {
                    writer, _ in
                    writer.u32(instance.number)
                    payload(&writer)
                }
                return answer
            } catch where RunnerRetry.after(error, attempt: attempt, in: .instanceCall) == .recreate {
                (instance, _) = try Self.create(on: runner, component: component, inputs: inputs, context: context, renderingAhead: nil)
                context.record([GraftWarning(
                    .pluginRestarted,
                    "instance '\(id)' of \(component.contract.reference) was re-created from its last inputs: the process of plugin '\(component.pluginID)' restarted, and its state was lost.",
                    instanceID: id)])
            }
        }
        throw GraftError(.pluginRestarted, "the process of plugin '\(component.pluginID)' keeps restarting.")
    }

    /// The warnings that close every answer about an instance.
    private func recordWarnings(_ reader: inout WireReader) {
        context.record((try? reader.warnings(instanceID: context.instanceID)) ?? [])
    }

    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        var answer = try call(.render, "render", rendering: mediaType) { $0.string(mediaType.rawValue) }
        guard answer.kind == .rendered, let type = try? answer.reader.string(), let text = try? answer.reader.string() else {
            throw GraftError(.renderFailed, "the runner of \(component.pluginPath) answered render with \(answer.kind).")
        }
        // The limit holds here, whatever the child says it checked.
        let limit = runner.limits.output
        if text.utf8.count > limit {
            throw GraftError(
                .outputTooLarge,
                "\(component.contract.reference) from plugin '\(component.pluginID)' answered a render of \(text.utf8.count) bytes, more than the \(limit) allowed; the output was refused.",
                key: component.contract.key)
        }
        recordWarnings(&answer.reader)
        return (Rendering(mediaType: MediaType(rawValue: type), text: text), false)
    }

    /// The child's instance explains the answer against the contract; its warnings come with it.
    func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool {
        var answer = try call(.interact, CallName("interact", quoting: action)) { writer in
            writer.string(action)
            writer.bool(data != nil)
            if let data { writer.value(data) }
        }
        let answered = (try? answer.reader.bool()) ?? false
        recordWarnings(&answer.reader)
        return answered
    }

    /// The child's instance takes the inputs, or is created again with them there.
    func update(inputs: [String: GraftValue]) throws(GraftError) -> Bool {
        var answer = try call(.update, "update") { $0.value(.object(inputs)) }
        _ = try? answer.reader.bool()
        recordWarnings(&answer.reader)
        self.inputs = inputs
        return true
    }

    func saveState() -> [UInt8]? {
        guard var answer = try? call(.saveState, "save_state", { _ in }), answer.kind == .state,
            (try? answer.reader.bool()) == true
        else { return nil }
        return try? answer.reader.counted()
    }

    func loadState(_ state: [UInt8]) -> Bool {
        guard var answer = try? call(.loadState, "load_state", { $0.counted(state) }) else { return false }
        let loaded = (try? answer.reader.bool()) ?? false
        recordWarnings(&answer.reader)
        return loaded
    }

    func resize(to size: ContainerSize) {
        _ = try? call(.resize, "resize") { $0.size(size) }
    }

    /// Not waited for (its answer is skipped); a process that restarted has
    /// no such instance any more, and nothing is sent.
    func destroy(closing: Bool) {
        if closing, !called { runner.noteFirstCall(on: component, rendering: nil) }
        runner.detach(instance)
        if let prefetch { runner.forget(prefetch.id) }
        prefetch = nil
        let instance = self.instance
        runner.post(.destroy, plugin: component.plugin, instance: instance) { $0.u32(instance.number) }
    }
}

// MARK: - The child's end

extension Wire {
    /// The instance a request is about (the first number of its payload),
    /// for the kinds about one; nil for the rest (a create makes one).
    static func instanceNumber(of kind: Kind, _ payload: [UInt8]) -> UInt32? {
        switch kind {
        case .render, .interact, .update, .saveState, .loadState, .destroy, .resize:
            var reader = WireReader(payload)
            return try? reader.u32()
        default:
            return nil
        }
    }
}

extension RunnerService.Server {
    /// Serves one request about an instance; nil when `kind` is not one.
    /// `created` is the number a create gives its instance, which a render
    /// of `Wire.justCreated` (sent behind that create) is about.
    func serveInstanceCall(_ kind: Wire.Kind, _ reader: inout WireReader, created: UInt32?) throws -> (Wire.Kind, [UInt8])? {
        var writer = WireWriter()
        /// An `answer`: a yes or no, then the instance's new warnings (none once it is gone).
        func answer(_ yes: Bool, _ instance: ComponentInstance?) -> (Wire.Kind, [UInt8]) {
            writer.bool(yes)
            writer.warnings(instance?.takeWarnings() ?? [])
            return (.answer, writer.bytes)
        }
        switch kind {
        case .create:
            let host = try host(try reader.u32())
            let key = try reader.string(), version = Int(try reader.u32())
            let inputs = try reader.object("inputs"), size = try reader.size()
            guard let number = created else { throw Wire.Violation(description: "a create the runner did not number") }
            let outbox = self.outbox
            let instance = try host.makeInstance(
                of: ComponentReference(key: key, version: version), id: String(number), inputs: inputs, containerSize: size,
                onEvent: { event in
                    var writer = WireWriter()
                    writer.u32(number)
                    writer.string(event.event)
                    writer.bool(event.payload != nil)
                    if let payload = event.payload { writer.value(payload) }
                    writer.warnings(event.warnings)
                    outbox.emit(Wire.frame(.emitted, id: 0, payload: writer.bytes))
                })
            keep(instance, as: number)
            writer.u32(number)
            writer.warnings(instance.takeWarnings())
            return (.created, writer.bytes)

        case .render:
            let number = try reader.u32()
            let instance = try instance(number == Wire.justCreated ? created ?? number : number)
            let mediaType = MediaType(rawValue: try reader.string())
            let (rendering, overflowed) = try instance.render(as: mediaType, outputLimit: settings.outputLimit)
            if overflowed {
                throw GraftError(
                    .outputTooLarge,
                    "\(instance.component.contract.reference) wrote more than \(settings.outputLimit) bytes in one render; the output was refused.",
                    key: instance.component.contract.key)
            }
            writer.string(rendering.mediaType.rawValue)
            writer.string(rendering.text)
            writer.warnings(instance.takeWarnings())
            return (.rendered, writer.bytes)

        case .interact:
            let instance = try instance(try reader.u32())
            let action = try reader.string()
            let data = try reader.bool() ? try reader.value() : nil
            return answer(instance.interact(action, data: data), instance)

        case .update:
            let instance = try instance(try reader.u32())
            try instance.update(inputs: try reader.object("inputs"))
            return answer(true, instance)

        case .saveState:
            let state = try instance(try reader.u32()).saveState()
            writer.bool(state != nil)
            if let state { writer.counted(state) }
            return (.state, writer.bytes)

        case .loadState:
            let instance = try instance(try reader.u32())
            return answer(instance.loadState(try reader.counted()), instance)

        case .destroy:
            remove(try reader.u32())?.close()
            return answer(true, nil)

        case .resize:
            let instance = try instance(try reader.u32())
            instance.containerSize = try reader.size()
            return answer(true, nil)

        default:
            return nil
        }
    }
}
