import GraftSupport

/// One act the sandbox refused a child: what was attempted and, where the
/// kernel's arguments say, on what ("read /etc/shadow", "connect to TCP port
/// 80", "start a new process"). The host learns of it from the seccomp
/// filter's listener, which the plugin cannot write to.
package struct SandboxDenial: Sendable, Hashable, CustomStringConvertible {
    /// The system call refused (`openat`, `ptrace`, …).
    package var call: String
    /// What it would have done, in words.
    package var act: String
    /// `sandbox_denied`, or `plugin_storage_limit` for a write past a folder's limit.
    var code: GraftError.Code

    package init(call: String, act: String, code: GraftError.Code = .sandboxDenied) {
        self.call = call
        self.act = act
        self.code = code
    }

    package var description: String { "\(act) (\(call))" }

    /// What the host says of it, after the code: "the sandbox refused plugin 'X': …".
    func sentence(plugin: String, during: String? = nil) -> String {
        let when = during.map { " during \($0)" } ?? ""
        return switch code {
        case .pluginStorageLimit: "\(plugin) is at its storage limit\(when): \(act.escapingControls) (\(call))."
        default: "the sandbox refused \(plugin)\(when): \(act.escapingControls) (\(call))."
        }
    }

    /// The warning a call's caller sees: `sandbox_denied` (or `plugin_storage_limit`), naming the plugin.
    func warning(pluginID: String, instanceID: String? = nil) -> GraftWarning {
        GraftWarning(code, sentence(plugin: "plugin '\(pluginID)'"), instanceID: instanceID)
    }
}
