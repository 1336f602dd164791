/// A render sent behind its create (the host's side): the runner remembers,
/// per component, whether its last instance was first rendered and in what
/// media type, and a new instance's create then carries that render in the
/// same write (`RunnerInstance.make`). The child serves both at once and
/// answers both in one write (`RunnerService.serve`); the first `render`
/// collects the answer here, or the instance forgets it.
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
    func collect(_ id: UInt32, plugin: LoadedPlugin, what: String, instance: Instance) throws(GraftError) -> Answer {
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
