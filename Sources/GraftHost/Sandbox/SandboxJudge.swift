import CGraftSandbox
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Answers the system calls a sandboxed child's filter asks its host about
/// (see `graft_sandbox.c`): the refused ones are refused, with words for the
/// report; for a call on a file, a socket or a process, the arguments decide.
///
/// The judge refuses only what it is sure the policy refuses; when it cannot
/// tell (a path it cannot read or resolve), it lets the call go on and the
/// kernel decide: Landlock enforces the same policy on files and ports, so a
/// plugin that races its own arguments between the host's look and the
/// kernel's can at most make a refusal go unreported, never gain an access.
struct SandboxJudge: Sendable {
    /// The child's process id (its threads' calls name them by thread id).
    let process: pid_t
    /// Real paths (symbolic links resolved, as Landlock's rules are) of what
    /// the child may read, and of what it may write.
    let readable: [String]
    let writable: [String]
    let connectPorts: Set<UInt16>
    let anyNetwork: Bool

    enum Verdict: Equatable {
        case allow
        case refuse(errno: Int32, SandboxDenial)

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
    }

    var network: Bool { anyNetwork || !connectPorts.isEmpty }

    /// The verdict on `call`, named `name`; `memory` reads the caller's strings and bytes.
    func judge(_ call: graft_sandbox_call, named name: String, memory: ChildMemory) -> Verdict {
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

        switch name {
        // Files: by what the call would do to which path.
        case "open": return file(path(0), opening: int(1), name)
        case "openat": return file(path(1, at: int(0)), opening: int(2), name)
        case "openat2":
            // struct open_how starts with its 64-bit flags.
            guard let how = memory.bytes(at: argument(2), count: 8) else { return .allow }
            let flags = how.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            return file(path(1, at: int(0)), opening: Int32(truncatingIfNeeded: flags), name)
        case "creat": return file(path(0), opening: O_WRONLY | O_CREAT | O_TRUNC, name)
        case "mkdir", "rmdir", "unlink", "truncate", "mknod", "chmod", "chown", "utime", "utimes":
            return change(path(0), name)
        case "lchown", "lsetxattr", "lremovexattr": return change(path(0, following: false), name)
        case "setxattr", "removexattr": return change(path(0), name)
        case "mkdirat", "unlinkat", "mknodat", "futimesat", "fchmodat", "fchmodat2", "fchownat":
            return change(path(1, at: int(0), following: false), name)
        case "rename", "link": return change(path(0, following: false), name, also: path(1, following: false))
        case "renameat", "renameat2", "linkat":
            return change(path(1, at: int(0), following: false), name, also: path(3, at: int(2), following: false))
        case "symlink": return change(path(1, following: false), name)
        case "symlinkat": return change(path(2, at: int(1), following: false), name)
        case "utimensat":
            // A NULL path changes the descriptor's own file.
            return argument(1) == 0 ? changeOpenFile(int(0), name) : change(path(1, at: int(0)), name)
        case "fchmod", "fchown", "fsetxattr", "fremovexattr": return changeOpenFile(int(0), name)

        // Sockets and connections.
        case "socket":
            let family = int(0), type = int(1) & 0xF
            let internet = family == AF_INET || family == AF_INET6
            if network && internet && (anyNetwork || type == Int32(SOCK_STREAM.rawValue)) { return .allow }
            let what = internet ? (type == Int32(SOCK_STREAM.rawValue) ? "TCP" : "UDP or raw") : Self.familyName(family)
            return refuse("open a \(what) socket\(network ? "" : " (no network access was granted)")", EACCES)
        case "connect":
            let length = Int(min(argument(2), 128))
            guard length >= 4, let address = memory.bytes(at: argument(1), count: length) else { return .allow }
            let family = Int32(address[0]) | Int32(address[1]) << 8
            guard family == AF_INET || family == AF_INET6 else { return refuse("connect to a \(Self.familyName(family)) socket", EACCES) }
            let port = UInt16(address[2]) << 8 | UInt16(address[3])
            return anyNetwork || connectPorts.contains(port) ? .allow : refuse("connect to TCP port \(port)", EACCES)

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
        case "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "migrate_pages",
            "move_pages", "get_robust_list", "setpgid":
            return isOwn(int(0)) ? .allow : refuse("\(name) on process \(int(0))")
        case "setpriority", "ioprio_set":
            return isOwn(int(1)) ? .allow : refuse("\(name) on process \(int(1))")

        // Refused whatever the arguments: say what they were for.
        case "clone", "fork", "vfork": return refuse("start a new process", EAGAIN)
        case "execve": return refuse("run the program \(memory.string(at: argument(0)) ?? "?")")
        case "execveat": return refuse("run a program")
        case "ptrace": return refuse("trace process \(int(1)) (ptrace request \(int(0)))")
        case "process_vm_readv", "process_vm_writev": return refuse("\(name == "process_vm_readv" ? "read" : "write") the memory of process \(int(0))")
        case "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "kcmp", "process_madvise", "process_mrelease":
            return refuse("reach another process (\(name))")
        case "bind", "listen": return refuse("accept connections (\(name))", EACCES)
        case "prctl": return refuse("change how the process is sandboxed or traced (prctl \(int(0)))")
        case "seccomp": return refuse("install a seccomp filter of its own")
        case "setsid": return refuse("leave its host's session")
        default: return refuse("use \(name), which no component needs")
        }
    }

    /// An open, by its flags: reading needs a readable path, anything that
    /// could change the file (write, create, truncate) a writable one. A path
    /// that does not exist, to be read, is left to the kernel (ENOENT, no access).
    private func file(_ path: ChildPath, opening flags: Int32, _ name: String) -> Verdict {
        // A handle without access to the contents, or one of the child's own
        // descriptors again (the kernel checks the file it leads to).
        if flags & Self.openPathFlag != 0 || path.isOwnDescriptor { return .allow }
        let writes = flags & O_ACCMODE != O_RDONLY || flags & (O_CREAT | O_TRUNC) != 0
        guard let resolved = path.resolved() else { return .allow }
        if writes {
            let act = flags & O_CREAT != 0 && !resolved.exists ? "create" : "write"
            return Self.isBeneath(resolved.path, writable) ? .allow : .refuse(name, "\(act) \(resolved.path)")
        }
        guard resolved.exists, !Self.isBeneath(resolved.path, readable) else { return .allow }
        return .refuse(name, "read \(resolved.path)")
    }

    /// A change to a path itself (create, remove, rename, link, metadata):
    /// only in writable folders. Metadata calls Landlock does not cover
    /// (chmod, chown, times, extended attributes) are decided here alone.
    private func change(_ path: ChildPath, _ name: String, also other: ChildPath? = nil) -> Verdict {
        for path in [path] + (other.map { [$0] } ?? []) {
            if path.isEmpty { continue }  // an `AT_EMPTY_PATH` call on a descriptor the child opened
            guard let resolved = path.resolved() else {
                // Unreadable or unresolvable: chmod and the like have no Landlock check behind them.
                return .refuse(name, "change a path the host could not read")
            }
            if !Self.isBeneath(resolved.path, writable) { return .refuse(name, "change \(resolved.path) (\(name))") }
        }
        return .allow
    }

    /// A metadata change through a descriptor (fchmod, fchown, …): Landlock
    /// does not look at these, and a child run as root owns the system's
    /// files, so only files in writable folders may change.
    private func changeOpenFile(_ descriptor: Int32, _ name: String) -> Verdict {
        guard let target = ChildPath.link("/proc/\(process)/fd/\(descriptor)") else { return .allow }  // gone: EBADF
        guard target.hasPrefix("/") else { return .allow }  // a pipe, a socket, a memory file
        return Self.isBeneath(target, writable) ? .allow : .refuse(name, "change \(target) (\(name))", EPERM)
    }

    /// Whether `pid` is the child or one of its threads.
    private func isOwn(_ pid: Int32) -> Bool {
        pid == 0 || pid == process || (pid > 0 && access("/proc/\(process)/task/\(pid)", F_OK) == 0)
    }

    /// O_PATH (the same on every Linux architecture Graft builds for), which Glibc's module does not export.
    static let openPathFlag: Int32 = 0o10000000

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
        default: "family \(family)"
        }
    }
}

/// A path as a child named it, resolved the way the kernel would for that
/// child: relative to its working folder or to a folder descriptor of its,
/// `/proc/self` as the child's own.
struct ChildPath {
    let raw: String?
    let folder: Int32?
    let thread: pid_t
    let process: pid_t
    let following: Bool

    var isEmpty: Bool { raw?.isEmpty ?? false }

    /// Whether the path names one of the child's own descriptors and nothing
    /// else (`/proc/self/fd/N`, or the loader's `/proc/self/fd/././N` names):
    /// digits, dots and slashes after the folder, never `..`.
    var isOwnDescriptor: Bool {
        guard let raw else { return false }
        for prefix in ["/proc/self/fd", "/proc/thread-self/fd", "/proc/\(process)/fd"] where raw.hasPrefix(prefix + "/") {
            let rest = raw.utf8.dropFirst(prefix.utf8.count)
            return !raw.contains("..") && rest.allSatisfy { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ".") || (48...57).contains($0) }
        }
        return false
    }

    /// The absolute real path (the last step resolved too when `following`,
    /// and when the file exists), or nil when it cannot be told.
    func resolved() -> (path: String, exists: Bool)? {
        guard let raw, !raw.isEmpty else { return nil }
        var absolute: String
        if raw.hasPrefix("/") {
            absolute = raw
        } else {
            let base = folder.map { $0 == AT_FDCWD ? "/proc/\(thread)/cwd" : "/proc/\(process)/fd/\($0)" } ?? "/proc/\(thread)/cwd"
            guard let target = Self.link(base) else { return nil }
            absolute = target + "/" + raw
        }
        for (prefix, replacement) in [("/proc/self", "/proc/\(process)"), ("/proc/thread-self", "/proc/\(process)/task/\(thread)")]
        where absolute == prefix || absolute.hasPrefix(prefix + "/") {
            absolute = replacement + absolute.dropFirst(prefix.count)
        }
        // One of the child's own descriptors: what it leads to is not a path to judge.
        if absolute.hasPrefix("/proc/\(process)/fd/") || absolute.hasPrefix("/proc/\(process)/task/") { return nil }
        if following, let real = FilePaths.realPath(absolute) { return (real, true) }
        // The nearest folder above that exists decides (a path being made, or
        // one that is missing, lies where that folder is): its real path, then
        // the rest as named.
        var folder = FilePaths.folder(of: absolute)
        var rest = FilePaths.lastComponent(of: absolute)
        var realFolder = FilePaths.realPath(folder)
        while realFolder == nil {
            guard folder != "/", !folder.isEmpty else { return nil }
            rest = FilePaths.lastComponent(of: folder) + "/" + rest
            folder = FilePaths.folder(of: folder)
            realFolder = FilePaths.realPath(folder)
        }
        guard let realFolder, !rest.split(separator: "/").contains("..") else { return nil }
        let path = realFolder == "/" ? "/" + rest : realFolder + "/" + rest
        var information = stat()
        return (path, lstat(path, &information) == 0)
    }

    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Reads a sandboxed child's memory (the arguments its calls point to).
struct ChildMemory {
    let thread: pid_t

    func string(at address: UInt64) -> String? {
        guard address != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = graft_read_child_string(thread, address, &buffer, buffer.count)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func bytes(at address: UInt64, count: Int) -> [UInt8]? {
        guard address != 0, count > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        return graft_read_child_memory(thread, address, &bytes, count) == 0 ? bytes : nil
    }
}
