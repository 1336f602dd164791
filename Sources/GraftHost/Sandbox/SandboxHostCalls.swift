import CGraftSandbox
import CGraftSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What the host does itself on a sandboxed child's behalf: the few calls
/// Landlock does not cover that a component may need on its own files
/// (`fchmod`, `futimens`) or folders (`inotify_add_watch`). The host takes
/// the child's descriptor (pidfd_getfd) or opens the path in the child's own
/// root, checks that very file, and acts on it: no path or descriptor can
/// change between the check and the act. Used by the monitor thread only.
final class SandboxHostCalls: @unchecked Sendable {
    private let process: pid_t
    /// Opened on first use; closed by `close()`.
    private var pidfd: Int32 = -1
    private var root: Int32 = -1

    init(process: pid_t) {
        self.process = process
    }

    func close() {
        for descriptor in [pidfd, root] where descriptor >= 0 { Glibc.close(descriptor) }
        pidfd = -1
        root = -1
    }

    /// What the child's descriptor leads to, for a report.
    func describe(descriptor: Int32) -> String {
        ChildPath.link("/proc/\(process)/fd/\(descriptor)") ?? "descriptor \(descriptor)"
    }

    /// `fchmod(descriptor, mode)`: on a regular file the child opened for
    /// writing (Landlock let it open only those in its own folders), without
    /// set-user-id, set-group-id or sticky bits.
    func changeMode(descriptor: Int32, mode: mode_t) -> SandboxJudge.Verdict {
        let file: Int32
        switch take(descriptor) {
        case .failure(let verdict): return verdict
        case .success(let taken): file = taken
        }
        defer { Glibc.close(file) }
        guard Self.isWritableRegularFile(file) else {
            return .refuse("fchmod", "change the mode of \(describe(descriptor: descriptor)) (only a file it opened for writing)", EPERM)
        }
        guard mode & ~0o777 == 0 else {
            return .refuse("fchmod", "set the mode \(String(mode, radix: 8)) on \(describe(descriptor: descriptor)) (set-user-id, set-group-id or sticky)", EPERM)
        }
        return fchmod(file, mode) == 0 ? .answer(0) : .fail(errno: errno)
    }

    /// `utimensat(descriptor, NULL, times, flags)` (futimens): the same rule.
    func changeTimes(descriptor: Int32, times address: UInt64, flags: Int32, memory: ChildMemory) -> SandboxJudge.Verdict {
        guard flags == 0 else { return .fail(errno: EINVAL) }
        var times = [timespec](repeating: timespec(), count: 2)
        if address != 0 {
            guard let bytes = memory.bytes(at: address, count: MemoryLayout<timespec>.stride * 2) else { return .fail(errno: EFAULT) }
            bytes.withUnsafeBytes { raw in
                for index in 0..<2 { times[index] = raw.loadUnaligned(fromByteOffset: index * MemoryLayout<timespec>.stride, as: timespec.self) }
            }
        }
        let file: Int32
        switch take(descriptor) {
        case .failure(let verdict): return verdict
        case .success(let taken): file = taken
        }
        defer { Glibc.close(file) }
        guard Self.isWritableRegularFile(file) else {
            return .refuse("utimensat", "change the times of \(describe(descriptor: descriptor)) (only a file it opened for writing)", EPERM)
        }
        let result = address == 0 ? futimens(file, nil) : futimens(file, times)
        return result == 0 ? .answer(0) : .fail(errno: errno)
    }

    /// `inotify_add_watch(inotify, path, mask)`: only on a path in one of the
    /// child's writable folders, as the child's own root resolves it, through
    /// no link.
    func watch(inotify: Int32, path: String?, mask: UInt32, writable: [String]) -> SandboxJudge.Verdict {
        guard let path else { return .fail(errno: EFAULT) }
        guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."), SandboxJudge.isBeneath(path, writable) else {
            return .refuse("inotify_add_watch", "watch \(path) (only its own folders, by absolute path)", EACCES)
        }
        let instance: Int32
        switch take(inotify) {
        case .failure(let verdict): return verdict
        case .success(let taken): instance = taken
        }
        defer { Glibc.close(instance) }
        guard ChildPath.link("/proc/self/fd/\(instance)") == "anon_inode:inotify" else { return .fail(errno: EINVAL) }
        guard let root = openRoot() else { return .fail(errno: EACCES) }
        let target = graft_open_in_root(root, path)
        guard target >= 0 else { return .fail(errno: errno) }
        defer { Glibc.close(target) }
        // No `..` and no link on the way (`graft_open_in_root`): the file lies beneath the writable folder its path names.
        // The descriptor's own name leads to the very file checked; a link is no longer followed.
        let dontFollow: UInt32 = 0x0200_0000
        let watch = inotify_add_watch(instance, "/proc/self/fd/\(target)", mask & ~dontFollow)
        return watch >= 0 ? .answer(Int64(watch)) : .fail(errno: errno)
    }

    // MARK: Reaching the child

    private enum Taken {
        case success(Int32)
        case failure(SandboxJudge.Verdict)
    }

    /// A copy of the child's descriptor: the same open file, for good.
    private func take(_ descriptor: Int32) -> Taken {
        if pidfd < 0 { pidfd = graft_pidfd_open(process) }
        guard pidfd >= 0 else { return .failure(.fail(errno: ESRCH)) }
        let copy = graft_child_descriptor(pidfd, descriptor)
        guard copy >= 0 else {
            let error = errno
            // A descriptor the child does not hold is the kernel's EBADF; anything else, the host could not look.
            return .failure(error == EBADF ? .fail(errno: EBADF) : .refuse("pidfd_getfd", "have the host act on descriptor \(descriptor) (\(String(cString: strerror(error))))", EPERM))
        }
        return .success(copy)
    }

    private func openRoot() -> Int32? {
        if root < 0 { root = open("/proc/\(process)/root", SandboxJudge.openPathFlag | O_DIRECTORY | O_CLOEXEC) }
        return root >= 0 ? root : nil
    }

    static func isWritableRegularFile(_ file: Int32) -> Bool {
        let flags = fcntl(file, F_GETFL)
        var status = stat()
        return flags >= 0 && flags & SandboxJudge.openPathFlag == 0 && flags & O_ACCMODE != O_RDONLY
            && fstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
