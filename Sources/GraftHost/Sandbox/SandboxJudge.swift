import CGraftSandbox
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Answers the system calls a sandboxed child's filter asks its host about.
/// The filter is an allow-list (`graft_sandbox_calls.c`): whatever it does
/// not allow comes here. A call on a file path, a socket address or another
/// process is judged by its arguments; a metadata change or a watch on a
/// descriptor of the child's own is done by the host itself
/// (`SandboxHostCalls`); everything else is refused, with its group's error,
/// or with ENOSYS when it is on no list.
///
/// The judge allows only what the kernel enforces again: a path's open, made
/// or removed file is Landlock's to refuse as well, so a plugin that races
/// its own arguments between the host's look and the kernel's can at most
/// make a refusal go unreported, never gain an access. What Landlock does not
/// cover (modes, owners, times, attributes, watches) is never allowed on a
/// path the host merely read: it is refused, or done by the host on the very
/// file it checked.
struct SandboxJudge: Sendable {
    /// The child's process id (its threads' calls name them by thread id).
    let process: pid_t
    /// Real paths (symbolic links resolved, as Landlock's rules are) of what
    /// the child may read, and of what it may write.
    let readable: [String]
    let writable: [String]
    let connectPorts: Set<UInt16>
    let anyNetwork: Bool
    /// The child's private folder as it names it: a path written beneath it
    /// is its own (see `isPrivate`).
    let privateFolder: String?

    enum Verdict: Equatable {
        /// Let the call go on; the kernel (and Landlock) decide.
        case allow
        /// Fail it with `errno`, and report `SandboxDenial`.
        case refuse(errno: Int32, SandboxDenial)
        /// Done by the host: the call returns this.
        case answer(Int64)
        /// Done by the host, and failed as the kernel would have failed it (nothing refused).
        case fail(errno: Int32)

        static func refuse(_ call: String, _ act: String, _ error: Int32 = EACCES) -> Verdict {
            .refuse(errno: error, SandboxDenial(call: call, act: act))
        }
    }

    init(process: pid_t, policy: SandboxPolicy) {
        self.process = process
        writable = policy.writeFolders.compactMap(FilePaths.realPath) + ["/dev/null"]
        readable = (policy.libraryFolders + policy.readPaths).compactMap(FilePaths.realPath) + writable + [
            "/proc/\(process)", "/dev/zero", "/dev/urandom", "/dev/random",
        ]
        connectPorts = Set(policy.connectPorts)
        anyNetwork = policy.anyNetwork
        privateFolder = policy.privateFolder
    }

    /// Whether `path` is written beneath the child's private folder, without
    /// `..`: allowed at once, without resolving it here (the host cannot see
    /// into the child's tmpfs anyway). Where a link made inside leads, Landlock decides.
    private func isPrivate(_ path: ChildPath) -> Bool {
        guard let privateFolder, let raw = path.raw, raw.hasPrefix(privateFolder + "/") || raw == privateFolder else { return false }
        return !raw.split(separator: "/").contains("..")
    }

    var network: Bool { anyNetwork || !connectPorts.isEmpty }

    /// The AUDIT_ARCH value of the host's (and its children's) own system calls.
    static let nativeArch = graft_native_arch()
    /// The bit x32 system calls carry in their number on x86_64.
    static let x32Bit: Int32 = 0x4000_0000

    /// The verdict on `call`, named `name`; `memory` reads the caller's
    /// strings and bytes, `host` does what the host does on its behalf.
    func judge(_ call: graft_sandbox_call, named name: String, memory: ChildMemory, host: SandboxHostCalls) -> Verdict {
        // The call's six arguments, a C array Swift sees as a tuple.
        func argument(_ index: Int) -> UInt64 {
            withUnsafeBytes(of: call.args) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
        }
        func int(_ index: Int) -> Int32 { Int32(truncatingIfNeeded: argument(index)) }
        func refuse(_ act: String, _ error: Int32 = EPERM) -> Verdict { .refuse(name, act, error) }
        func path(_ index: Int, at folder: Int32? = nil, following: Bool = true) -> ChildPath {
            let raw = memory.string(at: argument(index))
            return ChildPath(raw: raw, folder: folder, thread: call.pid, process: process, following: following)
        }
        /// The path a metadata call names, for its report only (nothing is decided on it).
        func named(_ index: Int, at folder: Int32? = nil) -> String {
            guard argument(index) != 0 else { return "descriptor \(int(0))" }
            let raw = memory.string(at: argument(index)) ?? "?"
            guard !raw.isEmpty else { return "descriptor \(folder.map(String.init) ?? "?")" }
            return path(index, at: folder, following: false).resolved()?.path ?? raw
        }

        if call.arch != Self.nativeArch || call.nr & Self.x32Bit != 0 {
            let abi = call.arch != Self.nativeArch ? "a 32-bit (i386) system call" : "an x32 system call"
            return .refuse("system call \(call.nr & ~Self.x32Bit)", "make \(abi), number \(call.nr & ~Self.x32Bit)", ENOSYS)
        }

        // Nothing it makes may be set-user-id or set-group-id (its folders are nosuid as well).
        if Self.setsIDs(name, argument) { return refuse("make a file set-user-id or set-group-id (\(name))") }

        switch name {
        // Files: by what the call would do to which path; Landlock decides again.
        case "open": return file(path(0), opening: int(1), name, host)
        case "openat": return file(path(1, at: int(0)), opening: int(2), name, host)
        case "openat2":
            // struct open_how starts with its 64-bit flags.
            guard let how = memory.bytes(at: argument(2), count: 8) else { return .allow }
            let flags = how.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            return file(path(1, at: int(0)), opening: Int32(truncatingIfNeeded: flags), name, host)
        case "creat": return file(path(0), opening: O_WRONLY | O_CREAT | O_TRUNC, name, host)
        case "rmdir", "unlink": return change(path(0), name)
        case "mkdir", "truncate", "mknod": return change(path(0), name, making: host)
        case "unlinkat": return change(path(1, at: int(0), following: false), name)
        case "mkdirat", "mknodat": return change(path(1, at: int(0), following: false), name, making: host)
        case "rename", "link": return change(path(0, following: false), name, also: path(1, following: false), making: host)
        case "renameat", "renameat2", "linkat":
            return change(path(1, at: int(0), following: false), name, also: path(3, at: int(2), following: false), making: host)
        case "symlink": return change(path(1, following: false), name, making: host)
        case "symlinkat": return change(path(2, at: int(1), following: false), name, making: host)

        // Metadata: Landlock does not cover it, so nothing a path says decides it.
        case "chmod", "chown", "lchown", "utime", "utimes", "setxattr", "lsetxattr", "removexattr", "lremovexattr":
            return refuse("change \(named(0)) (\(name))")
        case "fchmodat", "fchmodat2", "fchownat", "futimesat", "setxattrat", "removexattrat", "file_setattr":
            return refuse("change \(named(1, at: int(0))) (\(name))")
        case "fchown": return refuse("change \(host.describe(descriptor: int(0))) (\(name))")
        case "fsetxattr":
            return host.setAttribute(
                descriptor: int(0), name: memory.string(at: argument(1)), value: argument(2), size: Int(min(argument(3), 1 << 20)),
                flags: int(4), memory: memory)
        case "fremovexattr": return host.removeAttribute(descriptor: int(0), name: memory.string(at: argument(1)))
        case "utimensat":
            // Without a path it changes the descriptor's own file: done by the host, on a file the child may change.
            guard argument(1) == 0 else { return refuse("change \(named(1, at: int(0))) (utimensat)") }
            return host.changeTimes(descriptor: int(0), times: argument(2), flags: int(3), memory: memory)
        case "fchmod": return host.changeMode(descriptor: int(0), mode: mode_t(truncatingIfNeeded: argument(1)))
        case "inotify_add_watch":
            return host.watch(inotify: int(0), path: memory.string(at: argument(1)), mask: UInt32(truncatingIfNeeded: argument(2)), writable: writable)

        // Sockets and connections: what the filter did not allow.
        case "socket":
            let family = int(0), type = int(1) & 0xF, socketProtocol = int(2)
            let internet = family == AF_INET || family == AF_INET6
            let stream = type == Int32(SOCK_STREAM.rawValue), datagram = type == Int32(SOCK_DGRAM.rawValue)
            let what =
                !internet ? "a \(Self.familyName(family))"
                : stream && socketProtocol == Self.mptcp ? "an MPTCP"
                : stream && (socketProtocol == 0 || socketProtocol == 6 /* TCP */) ? "a TCP"
                : datagram && (socketProtocol == 0 || socketProtocol == 17 /* UDP */ || socketProtocol == 1 /* ICMP */) ? "a UDP"
                : stream || datagram ? "a protocol \(socketProtocol)" : "a raw"
            return refuse("open \(what) socket\(network ? "" : " (no network access was granted)")", EACCES)
        case "connect":
            let length = Int(min(argument(2), 128))
            guard length >= 4, let address = memory.bytes(at: argument(1), count: length) else {
                return refuse("connect to an address it could not be read", EACCES)
            }
            let family = Int32(address[0]) | Int32(address[1]) << 8
            guard family == AF_INET || family == AF_INET6 else { return refuse("connect to a \(Self.familyName(family)) socket", EACCES) }
            let port = UInt16(address[2]) << 8 | UInt16(address[3])
            // Landlock refuses an ungranted port again, whatever this read.
            return connectPorts.contains(port) ? .allow : refuse("connect to TCP port \(port)", EACCES)
        case "sendto":
            if int(3) & Self.fastOpen != 0 { return refuse("connect implicitly (sendto with MSG_FASTOPEN)", EACCES) }
            return refuse("send to an address (sendto): only network:any sends datagrams", EACCES)
        case "sendmsg", "sendmmsg": return refuse("connect implicitly (\(name) with MSG_FASTOPEN)", EACCES)

        // Calls that name a process or a thread: the child's own pass.
        case "kill", "rt_sigqueueinfo":
            let target = int(0)
            if target == process { return .allow }
            let signal = int(1)
            return refuse(target <= 0 ? "send signal \(signal) to a process group" : "send signal \(signal) to process \(target)")
        case "tgkill", "rt_tgsigqueueinfo":
            return int(0) == process ? .allow : refuse("send signal \(int(2)) to process \(int(0))")
        case "tkill":
            return isOwn(int(0)) ? .allow : refuse("send signal \(int(1)) to thread \(int(0))")
        case "prlimit64", "get_robust_list", "sched_setaffinity", "sched_getaffinity", "sched_setscheduler", "sched_getscheduler",
            "sched_setparam", "sched_getparam", "sched_setattr", "sched_getattr", "sched_rr_get_interval", "getpgid", "getsid":
            return isOwn(int(0)) ? .allow : refuse("\(name) on process \(int(0))")
        case "setpriority", "getpriority":
            // PRIO_PROCESS (0) only: a group or a user would reach the host and the user's other processes.
            guard int(0) == 0 else { return refuse("\(name) on a process group or a user (which \(int(0)))") }
            return isOwn(int(1)) ? .allow : refuse("\(name) on process \(int(1))")
        case "ioprio_set", "ioprio_get":
            guard int(0) == 1 else { return refuse("\(name) on a process group or a user (which \(int(0)))") }  // IOPRIO_WHO_PROCESS
            return isOwn(int(1)) ? .allow : refuse("\(name) on process \(int(1))")
        case "memfd_create":
            return host.makesMemoryFile(limit: Self.memoryFileLimit) ? .allow : refuse("hold more than \(Self.memoryFileLimit) memory files at once (memfd_create)", EMFILE)
        case "fcntl": return refuse("use fcntl command \(int(1))")

        // Refused whatever the arguments: say what they were for.
        case "clone", "fork", "vfork": return refuse("start a new process", EAGAIN)
        case "execve": return refuse("run the program \(memory.string(at: argument(0)) ?? "?")")
        case "execveat": return refuse("run a program")
        case "ptrace": return refuse("trace process \(int(1)) (ptrace request \(int(0)))")
        case "process_vm_readv", "process_vm_writev":
            return refuse("\(name == "process_vm_readv" ? "read" : "write") the memory of process \(int(0))")
        case "bind", "listen", "accept", "accept4": return refuse("accept connections (\(name))", EACCES)
        case "socketpair": return refuse("open a pair of \(Self.familyName(int(0))) sockets (socketpair)")
        case "ioctl": return refuse("use ioctl request 0x\(String(UInt32(truncatingIfNeeded: argument(1)), radix: 16))")
        case "prctl": return refuse("change how the process is sandboxed or traced (prctl \(int(0)))")
        case "fallocate":
            guard int(1) == 0 else { return refuse("allocate space a file's size limit does not bound (fallocate mode \(int(1)))", EOPNOTSUPP) }
            host.allocate(argument(3))
            return .allow
        case "personality": return refuse("change its personality (0x\(String(UInt32(truncatingIfNeeded: argument(0)), radix: 16)))")
        case "seccomp": return refuse("install a seccomp filter of its own")
        case "setsid", "setpgid": return refuse("leave its host's session or process group (\(name))")
        case "fanotify_init", "fanotify_mark": return refuse("watch the file system (\(name))")
        default: return listed(name)
        }
    }

    /// A call the switch above does not judge: refused as its list says.
    private func listed(_ name: String) -> Verdict {
        var entry = graft_sandbox_entry()
        guard graft_sandbox_listing(name, &entry) == 1, entry.verdict != GRAFT_CALL_UNLISTED else {
            return .refuse(name, "use \(name), which is on none of the sandbox's lists", ENOSYS)
        }
        let group = String(cString: entry.group)
        switch group {
        case "ipc": return .refuse(name, "use \(name): no IPC outside its channel", entry.error)
        case "metadata": return .refuse(name, "change a file's mode, owner, times or attributes (\(name))", entry.error)
        default: return .refuse(name, "use \(name) (\(group): \(String(cString: entry.reason)))", entry.error)
        }
    }

    /// An open, by its flags: reading needs a readable path, anything that
    /// could change the file (write, create, truncate) a writable one. A path
    /// that does not exist, to be read, is left to the kernel (ENOENT, no access).
    private func file(_ path: ChildPath, opening flags: Int32, _ name: String, _ host: SandboxHostCalls) -> Verdict {
        let writes = flags & O_ACCMODE != O_RDONLY || flags & (O_CREAT | O_TRUNC) != 0
        if writes, flags & Self.openPathFlag == 0, host.hasQuotas, let full = host.storage(path.absolute, name, act: "write") { return full }
        // A handle without access to the contents, or one of the child's own
        // descriptors again (the kernel checks the file it leads to).
        if flags & Self.openPathFlag != 0 || path.isOwnDescriptor || isPrivate(path) { return .allow }
        guard let resolved = path.resolved() else { return .allow }
        if writes {
            let act = flags & O_CREAT != 0 && !resolved.exists ? "create" : "write"
            return Self.isBeneath(resolved.path, writable) ? .allow : .refuse(name, "\(act) \(resolved.path)")
        }
        guard resolved.exists, !Self.isBeneath(resolved.path, readable) else { return .allow }
        return .refuse(name, "read \(resolved.path)")
    }

    /// A change to a path itself (create, remove, rename, link): only in
    /// writable folders. Landlock checks the same again. What it `making`s
    /// (the last path named) counts against its folder's limit.
    private func change(_ path: ChildPath, _ name: String, also other: ChildPath? = nil, making host: SandboxHostCalls? = nil) -> Verdict {
        if let host, host.hasQuotas, let full = host.storage((other ?? path).absolute, name, act: "make") { return full }
        for path in [path] + (other.map { [$0] } ?? []) {
            if path.isEmpty || isPrivate(path) { continue }  // `AT_EMPTY_PATH` on its own descriptor; its own folder
            guard let resolved = path.resolved() else { return .allow }
            if !Self.isBeneath(resolved.path, writable) { return .refuse(name, "change \(resolved.path) (\(name))") }
        }
        return .allow
    }

    /// Whether `pid` is the child or one of its threads.
    private func isOwn(_ pid: Int32) -> Bool {
        pid == 0 || pid == process || (pid > 0 && access("/proc/\(process)/task/\(pid)", F_OK) == 0)
    }

    /// The memory files a child may hold at once: unmapped, their pages count against no address-space limit.
    static let memoryFileLimit = 8

    /// Whether a call that makes a file asks for it set-user-id or set-group-id.
    static func setsIDs(_ name: String, _ argument: (Int) -> UInt64) -> Bool {
        let mode: UInt64
        switch name {
        case "open": mode = argument(1) & UInt64(O_CREAT) != 0 ? argument(2) : 0
        case "openat": mode = argument(2) & UInt64(O_CREAT) != 0 ? argument(3) : 0
        case "creat", "mkdir", "mknod": mode = argument(1)
        case "mkdirat", "mknodat": mode = argument(2)
        default: mode = 0
        }
        return mode & 0o6000 != 0
    }

    /// O_PATH (the same on every Linux architecture Graft builds for), which Glibc's module does not export.
    static let openPathFlag: Int32 = 0o10000000
    static let fastOpen: Int32 = 0x2000_0000
    static let mptcp: Int32 = 262

    static func isBeneath(_ path: String, _ roots: [String]) -> Bool {
        roots.contains { root in path == root || path.hasPrefix(root == "/" ? "/" : root + "/") }
    }

    static func familyName(_ family: Int32) -> String {
        switch family {
        case AF_UNIX: "Unix"
        case AF_INET: "IPv4"
        case AF_INET6: "IPv6"
        case AF_NETLINK: "netlink"
        case AF_PACKET: "packet"
        case 40: "vsock"
        default: "family \(family)"
        }
    }
}
