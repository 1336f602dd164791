import CGraftSandbox

/// What this kernel would let a child apply of the sandbox, asked once per
/// process without applying anything (a few system calls): for `graft list`,
/// which says which sandbox is in force even when every plugin comes from
/// the registry cache and no child starts.
package enum SandboxSupport {
    package static let current: ChildSandbox.Status = {
        var status = graft_sandbox_status()
        graft_sandbox_probe(&status)
        return ChildSandbox.Status(status)
    }()

    /// One line for people: what is in force under `mode` (or in process).
    package static func summary(mode: SandboxSettings.Mode, inProcess: Bool, status: ChildSandbox.Status = current) -> String {
        if inProcess { return "none: plugin code runs in this process (in-process isolation)" }
        switch mode {
        case .off: return "off: child processes run plugin code with this user's rights and environment"
        case .enforced where !status.isComplete:
            return "enforced, but this system cannot sandbox (missing: \(status.missing)): no plugin code runs"
        case .enforced, .bestEffort:
            var parts: [String] = []
            if status.files {
                let covers = ["files"] + (status.network ? ["TCP ports"] : []) + (status.scopes ? ["signals and abstract sockets"] : [])
                parts.append("Landlock ABI \(status.landlockABI) (\(covers.joined(separator: ", ")))")
            }
            if status.seccomp { parts.append(status.missing.contains("user notification") ? "seccomp" : "seccomp with reports of refused acts") }
            let missing = status.missing.isEmpty ? "" : "; missing: \(status.missing)"
            return "\(mode.rawValue): \(parts.isEmpty ? "nothing" : parts.joined(separator: ", "))\(missing)"
        }
    }
}

extension ChildSandbox.Status {
    init(_ status: graft_sandbox_status) {
        func text<T>(_ field: T) -> String { withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
        self.init(
            landlockABI: Int(status.landlock_abi), files: status.landlock_files, network: status.landlock_network,
            scopes: status.landlock_scopes, seccomp: status.seccomp, missing: text(status.missing))
        privateTmpfs = status.private_tmpfs
        networkNamespace = status.network_namespace
        ipcNamespace = status.ipc_namespace
        ownProc = status.own_proc
        user = status.user
        degraded = text(status.degraded)
    }
}
