import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Reading the child's channel: callers read for themselves, one at a time
/// (`reading`), for every request in flight, and hand what they read to
/// `calls`, doing what it decides.
extension PluginRunner {
    /// Waits, with `lock` held, until request `id` has its answer and takes
    /// it (with its events). While nobody else reads the channel, this caller
    /// does, for every request in flight; the others wait on the condition.
    func waitForAnswer(_ id: UInt32, on child: any RunnerTransport, events: inout [Calls.Event]) throws(GraftError) -> Answer {
        while true {
            if let (outcome, taken) = calls.take(id) {
                events += taken
                if closed != nil { lock.broadcast() }  // `close` waits for the calls in flight
                return try outcome.get()
            }
            guard let request = calls.requests[id] else {
                throw GraftError(.pluginRestarted, "an answer was lost with its process; the call must be made again.")
            }
            if reading || readerThread {
                lock.wait()
                continue
            }
            guard supervisor.child === child else {
                // Gone without this request being told (it cannot be): fail it.
                calls.fail(id, GraftError(
                    .pluginRestarted,
                    "the process of plugin '\(request.plugin.info.id)' restarted; \(request.what) must be asked again."))
                continue
            }
            // The nearest deadline of every caller waiting: the reader keeps them all.
            let plugin = request.plugin
            read(child, until: calls.nearestDeadline ?? .now + limits.call) { line in
                self.logger.notice("\(line)", metadata: ["plugin": "\(plugin.info.id)"])
            }
        }
    }

    /// One turn at reading `child`, with `lock` held (and released while it
    /// waits, until `until`): what came is handled, the waiters are woken,
    /// and events that came for no call in flight are delivered outside the lock.
    private func read(_ child: any RunnerTransport, until: ContinuousClock.Instant, onOutput: (String) -> Void) {
        reading = true
        lock.unlock()
        let received = child.receive(until: until, onOutput: onOutput)
        lock.lock()
        reading = false
        let loose = handle(received, from: child)
        lock.broadcast()
        guard !loose.isEmpty else { return }
        lock.unlock()
        for event in loose { event.deliver() }
        lock.lock()
    }

    /// The other way to read, measured beside callers reading for themselves
    /// (`graft bench isolation`): a thread per child reads its channel for
    /// every caller, who only wait, until the child is replaced. It holds the
    /// runner only while it reads.
    func startReader(for child: any RunnerTransport) {
        nonisolated(unsafe) let child = child  // used under `lock`, or by the one reader
        startThread(named: "graft.runner-reader") { [weak self] in
            while let runner = self, runner.readOnce(child) {}
        }
    }

    /// One read by the reader thread; false once `child` is no longer the runner's.
    private func readOnce(_ child: any RunnerTransport) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard supervisor.child === child else { return false }
        if reading {
            lock.wait()
            return true
        }
        // With nothing in flight it looks again each second, for the deadlines of calls made meanwhile.
        read(child, until: calls.nearestDeadline ?? .now + .seconds(1)) { self.logger.notice("\($0)") }
        return true
    }

    /// Does what `calls` decides about what the reader received; returns the
    /// events that came with no call about their instance in flight, to be
    /// delivered at once (outside the lock).
    private func handle(_ received: ChildProcess.Received, from child: any RunnerTransport) -> [Calls.Event] {
        switch received {
        case .frame(let header, let payload):
            switch calls.received(header, payload) {
            case .none: return []
            case .answered(let plugin, let context):
                noteDenials(child.sandboxDenials(upTo: child.lastFrameEnd), of: plugin, context: context)
                return []
            case .deliver(let events): return events
            case .log(let error):
                logger.warning("\(error)")
                return []
            case .kill(let kill):
                self.kill(child, kill)
                return []
            }
        case .closed:
            died(child)
        case .timedOut:
            if let kill = calls.overdue() { self.kill(child, kill) }
        case .violation(let reason):
            if let kill = calls.violation(reason) { self.kill(child, kill) }
        }
        return []
    }

    /// Acts the sandbox refused while a request about `plugin` was served
    /// (or, with other calls in flight in the same child, while one of them
    /// was): to the host (its log and reports), and to the instance the call
    /// is about as `sandbox_denied` warnings. Called with `lock` held.
    func noteDenials(_ denials: [SandboxDenial], of plugin: LoadedPlugin, context: InstanceContext?) {
        guard !denials.isEmpty else { return }
        // Logged once: by the instance when the call is about one (its log names the component), else by the host.
        report(plugin, denials, context != nil)
        guard let context else { return }
        context.record(denials.map { $0.warning(pluginID: plugin.info.id, instanceID: context.instanceID) })
    }
}

extension RunnerCalls.Event where Context == InstanceContext {
    /// To the instance's handlers, with the warnings the child attached.
    func deliver() {
        var rest = rest
        let warnings = (try? rest.warnings(instanceID: context.instanceID)) ?? []
        context.deliver(name, payload: payload, warnings: warnings)
    }
}
