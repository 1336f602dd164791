#if canImport(Glibc)
import Glibc
#endif

/// A runner child's life: which child runs and which generation it is,
/// the crashes each plugin caused and the quarantine they lead to. Held by
/// `PluginRunner` under its lock; the extension below starts, kills and
/// reaps children with it, and fails the requests in flight on one that ends.
struct RunnerSupervisor {
    static let crashesBeforeQuarantine = 3
    static let crashWindow = Duration.seconds(60)

    var child: (any RunnerTransport)?
    /// Bumped every time a child starts: instances of an older generation are gone.
    private(set) var generation = 0
    private var crashes: [ObjectIdentifier: [ContinuousClock.Instant]] = [:]
    private(set) var quarantined: [ObjectIdentifier: GraftError] = [:]
    /// The sandbox children start in, worked out for the first.
    private var sandboxRequest: Result<ChildSandbox.Request?, GraftError>?

    mutating func sandbox(_ make: () -> Result<ChildSandbox.Request?, GraftError>) throws(GraftError) -> ChildSandbox.Request? {
        let made = sandboxRequest ?? make()
        sandboxRequest = made
        return try made.get()
    }

    mutating func started(_ child: any RunnerTransport) {
        generation += 1
        self.child = child
    }

    /// Counts a crash of `plugin`'s; returns its quarantine when this crash
    /// is its third within `crashWindow`.
    mutating func noteCrash(of plugin: LoadedPlugin, _ error: GraftError, now: ContinuousClock.Instant = .now) -> GraftError? {
        let key = ObjectIdentifier(plugin)
        var times = (crashes[key] ?? []).filter { now - $0 < Self.crashWindow }
        times.append(now)
        crashes[key] = times
        guard times.count >= Self.crashesBeforeQuarantine, quarantined[key] == nil else { return nil }
        let held = GraftError(
            error.code,
            "plugin '\(plugin.info.id)' (\(plugin.info.path)) crashed \(times.count) times within \(Self.crashWindow): it is quarantined until its file changes (`graft quarantine clear \(plugin.info.path)` lifts it). Last: \(error.message)",
            path: plugin.info.path)
        quarantined[key] = held
        return held
    }
}

/// What a runner's requests are about, as errors name it.
protocol RunnerSubject: AnyObject {
    var subjectID: String { get }
    var subjectPath: String { get }
}

extension RunnerCalls {
    /// What kills a child that broke the protocol: `plugin_crashed`, blaming no request.
    static func abandon(_ plugin: Plugin, _ reason: String) -> Kill {
        let message = "plugin '\(plugin.subjectID)': its runner \(reason); the process was killed."
        return Kill(plugin: plugin, error: GraftError(.pluginCrashed, message, path: plugin.subjectPath), culprit: nil)
    }

    /// What kills a child that `plugin` made break a limit.
    static func limitError(_ plugin: Plugin, _ code: GraftError.Code, _ what: String) -> GraftError {
        GraftError(
            code, "plugin '\(plugin.subjectID)' \(what); its process was killed and starts again on the next call.",
            path: plugin.subjectPath)
    }
}

extension PluginRunner {
    /// The child, started (again, after one ended) for a call about `plugin`.
    func running(for plugin: LoadedPlugin) throws(GraftError) -> any RunnerTransport {
        if let child = supervisor.child { return child }
        if supervisor.generation > 0 { plugin.telemetry?.restarted() }
        var arguments = ["serve", "--output-limit", String(limits.output)]
        if let memory = limits.memory { arguments += ["--memory-limit", String(memory)] }
        let request = try supervisor.sandbox(sandbox)
        // A data folder granted to the plugin: the child learns where it is.
        let data = request?.policy.writeFolders.first
        let started = try connect(
            RunnerStart(
                executable: executable, arguments: arguments, environment: data.map { ["GRAFT_DATA_DIR": $0] } ?? [:],
                sandbox: request),
            logger)
        supervisor.started(started)  // `reset` emptied what the last child held
        // Weak: the child holds this through its ring.
        nonisolated(unsafe) weak let child = started  // compared by identity, used under `lock`
        started.whenEnded { [weak self] in if let child { self?.ended(child) } }
        if readerThread { startReader(for: started) }
        if limits.idleCPU != nil { IdleCPUWatch.shared.watch(self) }
        return started
    }

    /// Makes no new call (they fail with `host_shut_down`), waits until
    /// `until` for the calls in flight, then ends the child: asked to leave
    /// when nothing is in flight, else killed, the calls still in flight
    /// failing with `host_shut_down`. Returns once the child is reaped.
    func close(by until: ContinuousClock.Instant) {
        lock.lock()
        defer { lock.unlock() }
        closed = GraftError(.hostShutDown, "the host is shutting down: no plugin call is made any more.")
        while calls.awaitedInFlight, ContinuousClock.now < until {
            lock.wait(forSeconds: (until - .now) / .seconds(1))
        }
        guard let child = supervisor.child else { return }
        let late = GraftError(.hostShutDown, "the host shut down before this call ended; its process was stopped.")
        if calls.awaitedInFlight, reading {
            // The reader finds the channel closed, fails the calls and reaps the child.
            doomed = (child, nil, late)
            child.kill()
            while supervisor.child === child || reading { lock.wait(forSeconds: 0.05) }
            child.stop()
            return
        }
        if calls.awaitedInFlight {
            child.stop()
        } else {
            if !calls.queued.isEmpty { _ = child.send(frames: calls.takeQueued()) }
            child.leave()
        }
        reset(child) { id, request in self.failure(of: id, request, culprit: nil, late) }
    }

    /// Forgets `child` (if it is the current one) and fails every request in
    /// flight on it with `failure(request)`.
    func reset(_ child: any RunnerTransport, _ failure: (UInt32, Calls.Request) -> GraftError) {
        guard supervisor.child === child else { return }
        supervisor.child = nil
        slots = [:]
        servedPlugins = []
        calls.end(failing: failure)
        lock.broadcast()
    }

    /// `child` ended (its pidfd said so): unless a caller reads its channel
    /// and finds that out itself, it is reaped and forgotten now, so that no
    /// child stays a zombie until its runner's next call.
    func ended(_ child: any RunnerTransport) {
        lock.withLock {
            guard !reading, supervisor.child === child else { return }
            died(child)
            lock.broadcast()
        }
    }

    /// The child closed its channel: it died. Every call in flight fails
    /// with how (or, when another caller killed it, with why).
    func died(_ child: any RunnerTransport) {
        guard supervisor.child === child else { return }
        let ended = child.ended()
        let first = calls.firstOpen?.request
        if let first { noteDenials(child.sandboxDenials(upTo: nil), of: first.plugin, context: first.context) }
        if let doomed, doomed.child === child {
            self.doomed = nil
            reset(child) { id, request in self.failure(of: id, request, culprit: doomed.culprit, doomed.error) }
            return
        }
        let memoryLimit = limits.memory.flatMap { child.peakMemory >= Int($0 / 2) ? $0 : nil }
        func error(for request: Calls.Request) -> GraftError {
            let plugin = request.plugin
            let what = request.sendFailed ? "between two calls (found when sending \(request.what))" : request.what.description
            if let memoryLimit {
                return GraftError(
                    .pluginMemoryLimit,
                    "plugin '\(plugin.info.id)' (\(plugin.info.path)) reached its memory limit (\(memoryLimit >> 20) MiB) in \(what): its process \(ended) having reserved \(child.peakMemory >> 20) MiB. It starts again on the next call.",
                    path: plugin.info.path)
            }
            let stage = request.kind == .load && !request.sendFailed ? " while it was loaded" : ""
            return GraftError(
                .pluginCrashed,
                "plugin '\(plugin.info.id)' (\(plugin.info.path)) crashed in \(what): its process \(ended)\(stage). It starts again on the next call.",
                path: plugin.info.path)
        }
        if let first { noteCrash(of: first.plugin, error(for: first)) }
        reset(child) { _, request in
            var crash = error(for: request)
            if let held = self.supervisor.quarantined[ObjectIdentifier(request.plugin)] { crash.message += " " + held.message }
            return crash
        }
    }

    /// What a call in flight on a stopped child fails with: `cause` if it is
    /// the culprit, or at shutdown; else `plugin_restarted`, for another call's fault.
    private func failure(of id: UInt32, _ request: Calls.Request, culprit: UInt32?, _ cause: GraftError) -> GraftError {
        guard id != culprit, cause.code != .hostShutDown else { return cause }
        return GraftError(
            .pluginRestarted,
            "the process of plugin '\(request.plugin.info.id)' was stopped while it served \(request.what), for another call: \(cause.message)",
            path: request.plugin.info.path)
    }

    /// Kills a child whose runner broke the protocol (`plugin_crashed`).
    @discardableResult
    func abandon(_ child: any RunnerTransport, plugin: LoadedPlugin, _ reason: String) -> GraftError {
        kill(child, Calls.abandon(plugin, reason))
    }

    /// Kills a child that broke a rule or a limit: what the sandbox refused
    /// it is reported, the crash counts towards quarantine, and the error is
    /// returned, and is what the culprit fails with (the others in flight,
    /// innocent, fail with `plugin_restarted`). While another caller reads
    /// the channel, the child is only sent SIGKILL here: that reader finds
    /// it closed and fails the calls.
    @discardableResult
    func kill(_ child: any RunnerTransport, _ kill: Calls.Kill) -> GraftError {
        guard supervisor.child === child else { return kill.error }
        noteCrash(of: kill.plugin, kill.error)
        if reading {
            doomed = (child, kill.culprit, kill.error)
            child.kill()
            return kill.error
        }
        child.stop()
        noteDenials(child.sandboxDenials(upTo: nil), of: kill.plugin, context: kill.culprit.flatMap { calls.requests[$0]?.context })
        reset(child) { id, request in self.failure(of: id, request, culprit: kill.culprit, kill.error) }
        return kill.error
    }

    /// Three crashes within a minute quarantine the plugin.
    private func noteCrash(of plugin: LoadedPlugin, _ error: GraftError) {
        logger.error("\(error)")
        if let held = supervisor.noteCrash(of: plugin, error) { quarantine(plugin, held) }
    }
}
