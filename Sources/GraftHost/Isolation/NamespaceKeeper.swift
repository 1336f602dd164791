import CGraftSandbox
import CGraftSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The one empty network namespace and IPC namespace (and, for a host that
/// is not root, the user namespace that owns them) a host's sandboxed
/// children share: a `graft-child keep` process made them, and the host holds
/// them open (a descriptor of each) for as long as it lives; the keeper
/// itself is gone. A child with no network grant joins them with `setns`
/// instead of making namespaces of its own, which costs the kernel the
/// better part of a millisecond to make and more to tear down. Children in
/// them can make no socket and no SysV or POSIX IPC object at all (their
/// filter refuses them), so they share nothing; the namespaces keep them off
/// their host's. Where the kernel refuses, children make their own, as before.
final class NamespaceKeeper: Sendable {
    /// The namespaces' descriptors (user: -1 for a root host), or nil when none could be kept.
    let descriptors: (network: Int32, ipc: Int32, user: Int32)?

    private static let shared = Locked<[String: NamespaceKeeper]>([:])

    /// The keeper started with `executable` (once per process and executable).
    static func descriptors(executable: String) -> (network: Int32, ipc: Int32, user: Int32)? {
        shared.withLock { keepers in
            if let keeper = keepers[executable] { return keeper.descriptors }
            let keeper = NamespaceKeeper(executable: executable)
            keepers[executable] = keeper
            return keeper.descriptors
        }
    }

    private init(executable: String) {
        descriptors = SpawnThread.shared.run { Self.start(executable) }
    }

    /// Starts the keeper, opens its namespaces, then lets it end and reaps it.
    static func start(_ executable: String) -> (network: Int32, ipc: Int32, user: Int32)? {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), strdup("keep"), nil]
        var envp: [UnsafeMutablePointer<CChar>?] = [strdup("GRAFT_PARENT_PID=\(getpid())"), nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = graft_spawn(executable, &argv, &envp, pair[1], -1, -1, &pid) == 0
        // Only the keeper holds its end now: a keeper the kernel refused exits, and the read below sees it at once.
        close(pair[1])
        guard spawned else {
            close(pair[0])
            return nil
        }
        var ready = pollfd(fd: pair[0], events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        var polled: Int32
        repeat { polled = poll(&ready, 1, 5000) } while polled < 0 && errno == EINTR
        guard polled == 1, read(pair[0], &byte, 1) == 1 else {
            kill(pid, SIGKILL)
            close(pair[0])
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return nil
        }
        // Kept at 10 and above: a spawn dup2s them onto the child's 5, 6 and 7
        // in turn, and one already at 3 to 7 would be overwritten before its turn.
        func high(_ descriptor: Int32) -> Int32 {
            guard descriptor >= 0, descriptor < 10 else { return descriptor }
            let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
            close(descriptor)
            return moved
        }
        let network = high(open("/proc/\(pid)/ns/net", O_RDONLY | O_CLOEXEC))
        let ipc = high(open("/proc/\(pid)/ns/ipc", O_RDONLY | O_CLOEXEC))
        let user = geteuid() == 0 ? -1 : high(open("/proc/\(pid)/ns/user", O_RDONLY | O_CLOEXEC))
        // The namespaces live as long as these descriptors do: the keeper may go.
        close(pair[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard network >= 0, ipc >= 0, geteuid() == 0 || user >= 0 else {
            for descriptor in [network, ipc, user] where descriptor >= 0 { close(descriptor) }
            return nil
        }
        return (network, ipc, user)
    }
}
