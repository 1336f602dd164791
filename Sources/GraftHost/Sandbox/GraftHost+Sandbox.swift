extension GraftHost {
    /// Refused acts kept per plugin for reports; older ones are dropped first.
    static let keptDenials = 32

    /// Logs each act the sandbox refused a plugin as a `sandbox_denied`
    /// warning naming it, and keeps the latest for reports (`graft list`, the
    /// debugger, the workbench).
    func noteSandboxDenials(_ denials: [SandboxDenial], pluginID: String?, path: String, during: String) {
        guard !denials.isEmpty else { return }
        PluginTelemetry.denied(denials.count, plugin: pluginID ?? path)
        let name = pluginID.map { "plugin '\($0)'" } ?? path
        for denial in denials {
            logger.warning(
                "sandbox_denied: the sandbox refused \(name) during \(during): \(denial.act.escapingControls) (\(denial.call)).",
                metadata: ["plugin": "\(path)"])
        }
        sandboxDenialLog.withLock { log in
            var kept = log[path, default: []] + denials
            if kept.count > Self.keptDenials { kept.removeFirst(kept.count - Self.keptDenials) }
            log[path] = kept
        }
        let observers = sandboxObservers.withLock { Array($0.values) }
        guard !observers.isEmpty else { return }
        let warnings = denials.map { $0.warning(pluginID: pluginID ?? path) }
        for observer in observers { observer(pluginID, path, warnings) }
    }

    /// Calls `observer` with the `sandbox_denied` warnings of every act the
    /// sandbox refuses a plugin of this host, on the thread that learned of
    /// it (the action log records them). Returns a token for `removeSandboxObserver`.
    @discardableResult
    package func addSandboxObserver(
        _ observer: @escaping @Sendable (_ pluginID: String?, _ path: String, [GraftWarning]) -> Void
    ) -> Int {
        let token = observerTokens.wrappingAdd(1, ordering: .relaxed).newValue
        sandboxObservers.withLock { $0[token] = observer }
        return token
    }

    package func removeSandboxObserver(_ token: Int) {
        sandboxObservers.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// The latest acts the sandbox refused the plugin at `path` (as it was
    /// loaded), oldest first.
    package func sandboxDenials(ofPluginAt path: String) -> [SandboxDenial] {
        sandboxDenialLog.withLock { $0[path] ?? [] }
    }
}
