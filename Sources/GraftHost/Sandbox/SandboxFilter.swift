import CGraftSandbox
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The children's seccomp filter, built once per process with libseccomp
/// (`graft_sandbox_filter`) and handed to each child as a BPF program: a
/// child then installs it with one system call instead of building it anew
/// in a process whose pages are all cold (0.5 ms or more of each start).
/// The filter depends only on the policy's network grants; nothing else of a
/// child is in it.
enum SandboxFilter {
    private static let built = Locked<[Key: String]>([:])

    private struct Key: Hashable {
        var anyNetwork: Bool
        var connects: Bool
    }

    /// The program for `policy`, in hexadecimal, or empty when this system
    /// cannot build one (the child then builds its own, and says what it lacks).
    static func program(for policy: SandboxPolicy) -> String {
        let key = Key(anyNetwork: policy.anyNetwork, connects: !policy.connectPorts.isEmpty)
        if let program = built.withLock({ $0[key] }) { return program }
        var cPolicy = graft_sandbox_policy()
        cPolicy.any_network = key.anyNetwork
        // Only whether ports are granted shapes the filter (a rule for connect); which ones is Landlock's.
        var port: UInt16 = 1
        var hex: UnsafeMutablePointer<CChar>?
        let status = withUnsafePointer(to: &port) { port in
            cPolicy.connect_ports = key.connects ? port : nil
            cPolicy.connect_port_count = key.connects ? 1 : 0
            return graft_sandbox_filter(&cPolicy, &hex)
        }
        defer { free(hex) }
        let program = status == 0 && hex != nil ? String(cString: hex!) : ""
        built.withLock { $0[key] = program }
        return program
    }
}
