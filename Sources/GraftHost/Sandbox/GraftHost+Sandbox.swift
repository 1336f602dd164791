extension GraftHost {
    /// Logs each act the sandbox refused a plugin as a `sandbox_denied`
    /// warning naming it (unless `logged`: the instance a call was about
    /// logs it, with the component's name), and keeps the latest for reports
    /// (`graft list`, the debugger, the workbench).
    func noteSandboxDenials(_ denials: [SandboxDenial], pluginID: String?, path: String, during: String, logged: Bool = false) {
        guard !denials.isEmpty else { return }
        PluginTelemetry.denied(denials.count, plugin: pluginID ?? path)
        let name = pluginID.map { "plugin '\($0)'" } ?? path
        for denial in denials where !logged {
            logger.warning("\(denial.code.rawValue): \(denial.sentence(plugin: name, during: during))", metadata: ["plugin": "\(path)"])
        }
        sandboxReports.keep(denials, ofPluginAt: path)
        guard !sandboxReports.observers.isEmpty else { return }
        sandboxReports.observers.notify((pluginID, path, denials.map { $0.warning(pluginID: pluginID ?? path) }))
    }

    /// Calls `observer` with the `sandbox_denied` warnings of every act the
    /// sandbox refuses a plugin of this host, on the thread that learned of
    /// it (the action log records them), for as long as the host lives.
    package func addSandboxObserver(
        _ observer: @escaping @Sendable (_ pluginID: String?, _ path: String, [GraftWarning]) -> Void
    ) {
        _ = sandboxReports.observers.add { observer($0.pluginID, $0.path, $0.warnings) }
    }

    /// The latest acts the sandbox refused the plugin at `path` (as it was
    /// loaded), oldest first.
    package func sandboxDenials(ofPluginAt path: String) -> [SandboxDenial] {
        sandboxReports.denials(ofPluginAt: path)
    }
}

/// What the sandbox refused a host's plugins: the latest acts of each, for
/// reports, and who is told of each act as it is learned.
final class SandboxReports: Sendable {
    /// Refused acts kept per plugin; older ones are dropped first.
    static let kept = 32

    private let log = Locked<[String: [SandboxDenial]]>([:])
    let observers = Observers<(pluginID: String?, path: String, warnings: [GraftWarning])>()

    func keep(_ denials: [SandboxDenial], ofPluginAt path: String) {
        log.withLock { log in
            var kept = log[path, default: []] + denials
            if kept.count > Self.kept { kept.removeFirst(kept.count - Self.kept) }
            log[path] = kept
        }
    }

    func denials(ofPluginAt path: String) -> [SandboxDenial] { log.withLock { $0[path] ?? [] } }
}
