/// A render sent behind its create, the one shortcut of the runner protocol,
/// in one place: the runner remembers, per component, whether its last
/// instance was first rendered and in what media type, and a new instance's
/// create then carries that render in the same write (`RunnerInstance.make`).
/// The child serves both at once and answers both in one write (its reader
/// takes the render along: `ChildChannel.nextIsRenderOfJustCreated`); the
/// instance's first `render` collects the answer (`answerSentAhead`), any
/// other first call forgets it.
extension PluginRunner {
    static let uncollectedLimit = 32

    struct FirstCallKey: Hashable {
        var plugin: ObjectIdentifier
        var reference: ComponentReference
        init(_ component: RegisteredComponent) {
            plugin = ObjectIdentifier(component.plugin)
            reference = component.reference
        }
    }

    /// Waits for the answer to a request sent with `call(then:)`, or takes it
    /// if it came already. Fails with `plugin_restarted` if `instance`'s
    /// child is gone, as `call` does.
    func collect(_ id: UInt32, plugin: LoadedPlugin, what: CallName, instance: Instance) throws(GraftError) -> Answer {
        try withEvents { (events) throws(GraftError) -> Answer in
            guard instance.generation == supervisor.generation, let child = supervisor.child else {
                throw Self.restarted(plugin, what)
            }
            guard calls.await(id, context: calls.context(of: instance.number), deadline: limits.call) else {
                throw GraftError(.pluginRestarted, "the answer to \(what) was lost; \(what) must be asked again.")
            }
            return try waitForAnswer(id, on: child, events: &events)
        }
    }

    /// Gives up on a pipelined answer: it is skipped when it arrives.
    func forget(_ id: UInt32) { lock.withLock { calls.forget(id) } }

    /// The media type to render a new instance of `component` in, with its
    /// create: the one its last instance was first rendered in, if its first
    /// call was a render. Nil too when many such renders wait already (a host
    /// that creates instances and never uses them must not pile them up).
    func firstRender(of component: RegisteredComponent) -> MediaType? {
        lock.withLock {
            guard calls.uncollected < Self.uncollectedLimit else { return nil }
            return rendersFirst[FirstCallKey(component)]
        }
    }

    /// Pipelined answers not collected yet (for tests).
    var uncollected: Int { lock.withLock { calls.uncollected } }

    /// Learns whether instances of `component` are rendered first (and in what).
    func noteFirstCall(on component: RegisteredComponent, rendering mediaType: MediaType?) {
        lock.withLock { rendersFirst[FirstCallKey(component)] = mediaType }
    }
}

extension RunnerInstance {
    /// Creates the instance in the runner. With `renderingAhead`, when the
    /// last instance of this component was first rendered (in a media type
    /// the runner remembers), a render goes in the same write as the create
    /// and its answer comes with the create's, so the first `render` finds
    /// it on the way (one round trip saved). If the process dies in either,
    /// the host cannot tell which: it creates again, alone, and the first
    /// render reports the failure.
    static func make(
        on runner: PluginRunner, component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext,
        renderingAhead: Bool
    ) throws(GraftError) -> RunnerInstance {
        let ahead = renderingAhead ? runner.firstRender(of: component) : nil
        do throws(GraftError) {
            let (instance, prefetchID) = try create(on: runner, component: component, inputs: inputs, context: context, renderingAhead: ahead)
            let side = RunnerInstance(runner: runner, component: component, context: context, instance: instance, inputs: inputs)
            if let prefetchID, let ahead { side.prefetch = (prefetchID, ahead) }
            return side
        } catch where ahead != nil && RunnerRetry.after(error, attempt: 0, in: .createWithRender) == .createAlone {
            let (instance, _) = try create(on: runner, component: component, inputs: inputs, context: context, renderingAhead: nil)
            let side = RunnerInstance(runner: runner, component: component, context: context, instance: instance, inputs: inputs)
            side.firstRenderFailure = error
            return side
        }
    }

    /// The answer to the render sent with the create, when this first call is
    /// that render (else it is forgotten); nil when it must be asked. A
    /// failure of the render sent ahead is this render's.
    func answerSentAhead(rendering: MediaType?, name: CallName) throws(GraftError) -> PluginRunner.Answer? {
        if !called {
            called = true
            runner.noteFirstCall(on: component, rendering: rendering)
            if let failure = firstRenderFailure {
                firstRenderFailure = nil
                if rendering != nil { throw failure }
            }
        }
        guard let prefetch else { return nil }
        self.prefetch = nil
        guard let rendering, prefetch.mediaType == rendering else {
            runner.forget(prefetch.id)
            return nil
        }
        do throws(GraftError) {
            return try runner.collect(prefetch.id, plugin: component.plugin, what: name, instance: instance)
        } catch where error.code == .pluginRestarted {
            // Its process restarted: asked again, on a re-created instance.
            return nil
        }
    }
}

extension ChildChannel {
    /// Whether the next frame has arrived already and is a render of the
    /// instance just created (`Wire.justCreated`), sent behind its create.
    var nextIsRenderOfJustCreated: Bool {
        guard let header = try? frames.peek(), header.kind == .render, header.length >= 4 else { return false }
        var reader = WireReader(Array(frames.peekPayload(4)))
        return (try? reader.u32()) == Wire.justCreated
    }
}
