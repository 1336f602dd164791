#if canImport(Glibc)
import Glibc
#endif

/// The hostile fixture's acts (`Tests/Fixtures/plugins/hostile.c`), by
/// category, each with what it takes as its target and the words the host
/// reports its refusal with: the corpus every sandbox test draws from, in
/// the host's API and from the command line, as root and as nobody.
public enum HostileCategory: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Modes, owners, times and attributes of files outside the plugin's own.
    case metadata
    /// Unix sockets, socket pairs, System V and POSIX IPC.
    case ipc
    /// Sockets and connections beyond a grant.
    case network
    /// 32-bit and x32 system calls, numbers no kernel has, calls newer than the list.
    case foreignABI = "foreign-abi"
    /// Other processes in /proc, watches on folders not its own.
    case visibility
    /// Other processes, namespaces, identities and the kernel's surface.
    case processes

    public var description: String { rawValue }
}

/// What an act takes as its target.
public enum HostileTarget: Sendable, Hashable {
    /// Nothing ("x").
    case none
    /// A file of the test's, mode 0600, outside anything granted.
    case secret
    /// A file the plugin may read (0644, in a folder granted `read:`).
    case readable
    /// A TCP port on 127.0.0.1 the test listens on (not the one granted, when one is).
    case port
    /// The test's own process id.
    case hostProcess
    /// A folder of the system's (/etc).
    case systemFolder
    /// A folder the plugin may read (/usr, where the system's libraries are).
    case libraryFolder

    /// The target's text for the ones that need no setting up.
    public var fixedText: String? {
        switch self {
        case .none: "x"
        case .hostProcess: "\(getpid())"
        case .systemFolder: "/etc"
        case .libraryFolder: "/usr"
        default: nil
        }
    }
}

public struct HostileAct: Sendable, CustomStringConvertible {
    public let name: String
    public let category: HostileCategory
    public let target: HostileTarget
    /// Words of the host's report (`sandbox_denied`), or nil when the act
    /// fails without anything refused (what it looks for is not there).
    public let reported: String?

    public init(_ name: String, _ category: HostileCategory, _ target: HostileTarget = .none, reported: String?) {
        self.name = name
        self.category = category
        self.target = target
        self.reported = reported
    }

    public var description: String { name }
}

public enum HostileCorpus {
    /// Every act the sandbox must refuse (or hide from), with no network granted.
    public static let acts: [HostileAct] = metadata + ipc + network + foreignABI + visibility + processes

    public static func acts(in category: HostileCategory) -> [HostileAct] { acts.filter { $0.category == category } }

    static let metadata: [HostileAct] = [
        HostileAct("meta_symlink_chmod", .metadata, .secret, reported: "/link (chmod)"),
        HostileAct("meta_symlink_fchmodat", .metadata, .secret, reported: "/link (fchmodat)"),
        HostileAct("meta_symlink_chown", .metadata, .secret, reported: "/link (chown)"),
        HostileAct("meta_symlink_setxattr", .metadata, .secret, reported: "/link (setxattr)"),
        HostileAct("meta_futimesat", .metadata, .secret, reported: "/link (futimesat)"),
        HostileAct("meta_opath_fchmodat2", .metadata, .secret, reported: "(fchmodat2)"),
        HostileAct("meta_opath_utimensat", .metadata, .secret, reported: "(utimensat)"),
        HostileAct("meta_opath_fchownat", .metadata, .secret, reported: "(fchownat)"),
        HostileAct("meta_proc_fd_chmod", .metadata, .secret, reported: "/proc/self/fd/"),
        HostileAct("meta_dirfd_fchmodat", .metadata, .secret, reported: "(fchmodat)"),
        HostileAct("meta_setxattrat_dirfd", .metadata, .secret, reported: "(setxattrat)"),
        HostileAct("meta_cwd_chmod", .metadata, .secret, reported: "(chmod)"),
        HostileAct("meta_dotdot_chmod", .metadata, .secret, reported: "(chmod)"),
        HostileAct("meta_setxattr", .metadata, .secret, reported: "(setxattr)"),
        HostileAct("meta_lsetxattr", .metadata, .secret, reported: "(lsetxattr)"),
        HostileAct("meta_removexattr", .metadata, .secret, reported: "(removexattr)"),
        HostileAct("meta_setxattrat", .metadata, .secret, reported: "(setxattrat)"),
        HostileAct("meta_acl", .metadata, .secret, reported: "(setxattr)"),
        HostileAct("meta_file_setattr", .metadata, .secret, reported: "(file_setattr)"),
        HostileAct("meta_chown", .metadata, .secret, reported: "(chown)"),
        HostileAct("meta_lchown", .metadata, .secret, reported: "(lchown)"),
        HostileAct("meta_utimes", .metadata, .secret, reported: "(utimensat)"),
        HostileAct("meta_truncate", .metadata, .secret, reported: "(truncate)"),
        HostileAct("meta_hardlink", .metadata, .secret, reported: "(link)"),
        HostileAct("meta_fchmod_readonly", .metadata, .readable, reported: "only a file it opened for writing"),
        HostileAct("meta_futimens_readonly", .metadata, .readable, reported: "only a file it opened for writing"),
        HostileAct("meta_fsetxattr_readonly", .metadata, .readable, reported: "(fsetxattr)"),
        HostileAct("own_chmod", .metadata, reported: "/own-file (chmod)"),
    ]

    static let ipc: [HostileAct] = [
        HostileAct("unix_dgram_send", .ipc, .secret, reported: "open a Unix socket"),
        HostileAct("unix_dgram_connect", .ipc, .secret, reported: "open a Unix socket"),
        HostileAct("unix_seqpacket", .ipc, .secret, reported: "open a Unix socket"),
        HostileAct("unix_abstract", .ipc, reported: "open a Unix socket"),
        HostileAct("unix_abstract_dgram", .ipc, reported: "open a Unix socket"),
        HostileAct("unix_bind_abstract", .ipc, reported: "open a Unix socket"),
        HostileAct("unix_socketpair_send", .ipc, .secret, reported: "(socketpair)"),
        HostileAct("ipc_msgget", .ipc, reported: "use msgget: no IPC outside its channel"),
        HostileAct("ipc_msgsnd", .ipc, reported: "use msgsnd"),
        HostileAct("ipc_shmget", .ipc, reported: "use shmget"),
        HostileAct("ipc_shmget_key", .ipc, reported: "use shmget"),
        HostileAct("ipc_shmat", .ipc, reported: "use shmat"),
        HostileAct("ipc_semget", .ipc, reported: "use semget"),
        HostileAct("ipc_mq_open", .ipc, reported: "use mq_open"),
        HostileAct("ipc_shm_open", .ipc, reported: "create /dev/shm/graft-corpus"),
    ]

    static let network: [HostileAct] = [
        HostileAct("net_fastopen", .network, .port, reported: "open a TCP socket (no network access was granted)"),
        HostileAct("net_fastopen_mptcp", .network, .port, reported: "open an MPTCP socket"),
        HostileAct("net_mptcp", .network, .port, reported: "open an MPTCP socket"),
        HostileAct("net_sendmsg_fastopen", .network, .port, reported: "open a TCP socket"),
        HostileAct("net_fastopen_connect_option", .network, .port, reported: "open a TCP socket"),
        HostileAct("net_ipv6", .network, .port, reported: "open a TCP socket"),
        HostileAct("net_ipv4_mapped", .network, .port, reported: "open a TCP socket"),
        HostileAct("net_udp_connect", .network, .port, reported: "open a UDP socket"),
        HostileAct("net_raw", .network, reported: "open a raw socket"),
        HostileAct("net_ping", .network, reported: "open a UDP socket"),
        HostileAct("net_netlink", .network, reported: "open a netlink socket"),
        HostileAct("net_packet", .network, reported: "open a packet socket"),
        HostileAct("net_vsock", .network, reported: "open a vsock socket"),
        HostileAct("net_sctp", .network, reported: "open a protocol 132 socket"),
        HostileAct("net_xdp", .network, reported: "open a family 44 socket"),
        HostileAct("net_alg", .network, reported: "open a family 38 socket"),
        HostileAct("net_bind", .network, reported: "open a TCP socket"),
    ]

    /// With one port granted (another than the target's): what the grant must not widen into.
    public static let aroundAPortGrant: [HostileAct] = [
        HostileAct("net_fastopen", .network, .port, reported: "connect implicitly (sendto with MSG_FASTOPEN)"),
        HostileAct("net_sendmsg_fastopen", .network, .port, reported: "connect implicitly (sendmsg with MSG_FASTOPEN)"),
        HostileAct("net_fastopen_mptcp", .network, .port, reported: "open an MPTCP socket"),
        HostileAct("net_mptcp", .network, .port, reported: "open an MPTCP socket"),
        HostileAct("net_fastopen_connect_option", .network, .port, reported: "connect to TCP port"),
        HostileAct("net_ipv6", .network, .port, reported: "connect to TCP port"),
        HostileAct("net_ipv4_mapped", .network, .port, reported: "connect to TCP port"),
        HostileAct("net_udp_connect", .network, .port, reported: "open a UDP socket"),
        HostileAct("net_bind", .network, reported: "accept connections (bind)"),
        HostileAct("unix_dgram_send", .network, .secret, reported: "open a Unix socket"),
    ]

    static let foreignABI: [HostileAct] = [
        HostileAct("abi_int80", .foreignABI, reported: "make a 32-bit (i386) system call, number 20"),
        HostileAct("abi_int80_kill_parent", .foreignABI, reported: "make a 32-bit (i386) system call, number 37"),
        HostileAct("abi_int80_open", .foreignABI, reported: "make a 32-bit (i386) system call, number 5"),
        HostileAct("abi_x32", .foreignABI, reported: "make an x32 system call, number 39"),
        HostileAct("abi_unknown", .foreignABI, reported: "use system call 1000, which is on none of the sandbox's lists"),
        HostileAct("new_listmount", .foreignABI, reported: "use listmount"),
        HostileAct("new_statmount", .foreignABI, reported: "use statmount"),
        HostileAct("new_lsm_list_modules", .foreignABI, reported: "use lsm_list_modules"),
        HostileAct("new_lsm_get_self_attr", .foreignABI, reported: "use lsm_get_self_attr"),
        HostileAct("new_setxattrat", .foreignABI, reported: "(setxattrat)"),
        HostileAct("new_open_tree_attr", .foreignABI, reported: "use open_tree_attr"),
        HostileAct("new_file_getattr", .foreignABI, reported: "(file_getattr)"),
        HostileAct("new_fchmodat2", .foreignABI, reported: "(fchmodat2)"),
        HostileAct("new_cachestat", .foreignABI, reported: "use cachestat"),
        HostileAct("new_memfd_secret", .foreignABI, reported: "use memfd_secret"),
        HostileAct("new_landlock", .foreignABI, reported: "use landlock_create_ruleset"),
    ]

    static let visibility: [HostileAct] = [
        HostileAct("see_proc_pid", .visibility, .hostProcess, reported: nil),
        HostileAct("see_proc_cmdline", .visibility, .hostProcess, reported: "/cmdline"),
        HostileAct("see_proc_listing", .visibility, reported: "read /proc"),
        HostileAct("see_inotify", .visibility, .systemFolder, reported: "watch /etc"),
        HostileAct("see_fanotify", .visibility, reported: "(fanotify_init)"),
        HostileAct("see_fanotify_fid", .visibility, .systemFolder, reported: "(fanotify_init)"),
        HostileAct("see_dmesg", .visibility, reported: "use syslog"),
        HostileAct("see_dnotify", .visibility, .libraryFolder, reported: "use fcntl command 1026"),
        HostileAct("see_xattr", .visibility, .secret, reported: "use listxattr"),
    ]

    static let processes: [HostileAct] = [
        HostileAct("proc_pidfd", .processes, reported: "use pidfd_open"),
        HostileAct("proc_pidfd_getfd", .processes, reported: "use pidfd_open"),
        HostileAct("proc_signal0_parent", .processes, reported: "send signal 0 to process"),
        HostileAct("proc_tgkill_parent", .processes, reported: "send signal 0 to process"),
        HostileAct("proc_renice_parent", .processes, reported: "on process"),
        HostileAct("proc_renice_group", .processes, reported: "on a process group or a user"),
        HostileAct("proc_ioprio_user", .processes, reported: "on a process group or a user"),
        HostileAct("proc_setpgid", .processes, reported: "(setpgid)"),
        HostileAct("proc_unshare_user", .processes, reported: "use unshare"),
        HostileAct("proc_clone_newuser", .processes, reported: "start a new process"),
        HostileAct("proc_clone_process", .processes, reported: "start a new process"),
        HostileAct("proc_vfork", .processes, reported: "start a new process"),
        HostileAct("proc_io_uring", .processes, reported: "use io_uring_setup"),
        HostileAct("proc_bpf", .processes, reported: "use bpf"),
        HostileAct("proc_perf", .processes, reported: "use perf_event_open"),
        HostileAct("proc_userfaultfd", .processes, reported: "use userfaultfd"),
        HostileAct("proc_userfaultfd_user", .processes, reported: "use userfaultfd"),
        HostileAct("proc_userfaultfd_dev", .processes, reported: "/dev/userfaultfd"),
        HostileAct("proc_add_key", .processes, reported: "use add_key"),
        HostileAct("proc_keyctl_session", .processes, reported: "use keyctl"),
        HostileAct("proc_personality", .processes, reported: "change its personality"),
        HostileAct("proc_prctl_dumpable", .processes, reported: "(prctl 4)"),
        HostileAct("proc_seccomp", .processes, reported: "(prctl 22)"),
        HostileAct("proc_seccomp_listener", .processes, reported: "install a seccomp filter of its own"),
        HostileAct("proc_setuid", .processes, reported: "use setuid"),
        HostileAct("proc_chroot", .processes, reported: "use chroot"),
        HostileAct("proc_mount", .processes, reported: "use mount"),
    ]

    /// The acts a constructor or `init` tries in the load-time tests: two of each category.
    public static let atLoad: [HostileAct] = HostileCategory.allCases.flatMap { category in
        let acts = Self.acts(in: category).filter { $0.reported != nil && $0.target != .readable }
        return [acts.first!, acts[acts.count / 2]]
    }
}
