extension GraftHost {
    /// Refused acts kept per plugin for reports; older ones are dropped first.
    static let keptDenials = 32

    /// Logs each act the sandbox refused a plugin as a `sandbox_denied`
    /// warning naming it, and keeps the latest for reports (`graft list`, the
    /// debugger, the workbench).
    func noteSandboxDenials(_ denials: [SandboxDenial], pluginID: String?, path: String, during: String) {
        guard !denials.isEmpty else { return }
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
    }

    /// The latest acts the sandbox refused the plugin at `path` (as it was
    /// loaded), oldest first.
    package func sandboxDenials(ofPluginAt path: String) -> [SandboxDenial] {
        sandboxDenialLog.withLock { $0[path] ?? [] }
    }
}
