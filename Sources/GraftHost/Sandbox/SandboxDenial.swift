/// One act the sandbox refused a child: what was attempted and, where the
/// kernel's arguments say, on what ("read /etc/shadow", "connect to TCP port
/// 80", "start a new process"). The host learns of it from the seccomp
/// filter's listener, which the plugin cannot write to.
package struct SandboxDenial: Sendable, Hashable, CustomStringConvertible {
    /// The system call refused (`openat`, `ptrace`, …).
    package var call: String
    /// What it would have done, in words.
    package var act: String

    package init(call: String, act: String) {
        self.call = call
        self.act = act
    }

    package var description: String { "\(act) (\(call))" }

    /// The warning a call's caller sees: `sandbox_denied`, naming the plugin.
    package func warning(pluginID: String, instanceID: String? = nil) -> GraftWarning {
        GraftWarning(
            .sandboxDenied, "the sandbox refused plugin '\(pluginID)': \(act.escapingControls) (\(call)).",
            instanceID: instanceID)
    }
}
