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
    /// The child's folders on the host's disk kept under a size, and when each was last measured.
    private let quotas: [FolderQuota]
    /// Per quota: what the folder held at its last walk, plus what was
    /// learnt since, and the files opened for writing since (as the child names them).
    private var measured: [(bytes: UInt64, entries: UInt64, at: ContinuousClock.Instant)?]
    private var opened: [Set<String>]

    init(process: pid_t, quotas: [FolderQuota] = []) {
        self.process = process
        self.quotas = quotas
        measured = quotas.map { _ in nil }
        opened = quotas.map { _ in [] }
    }

    /// Whether any folder of the child's is kept under a size.
    var hasQuotas: Bool { !quotas.isEmpty }

    /// A refusal when `path` (as the child wrote it) lies in a folder that
    /// is at its limit, else nil. The host walks the folder once a second,
    /// and again before it refuses;
    /// in between it counts what the child makes (4 KiB an entry) and each
    /// file it opened for writing: a file it closed since, at its size then;
    /// a file it still holds open, at the most it may grow to (its file-size
    /// limit, RLIMIT_FSIZE). A plugin that opens a hundred empty files to
    /// fill them at once is refused the fifth; one that writes them one by
    /// one is refused once they hold the limit. The file opened last can take
    /// the folder past its limit by at most its file-size limit.
    func storage(_ path: String?, _ name: String, act: String) -> SandboxJudge.Verdict? {
        guard let path, let index = quotas.firstIndex(where: { $0.covers(path) }) else { return nil }
        let quota = quotas[index], now = ContinuousClock.now
        if measured[index] == nil || now - measured[index]!.at > .seconds(1) {
            let usage = FolderQuota.usage(of: quota.hostPath)
            measured[index] = (usage.bytes, usage.entries, now)
            opened[index] = []
        }
        var (bytes, entries, at) = measured[index]!
        // Files it opened since, which may still grow: looked at only when they could reach the limit.
        var reserved = UInt64(opened[index].count) * quota.fileLimit
        if bytes + reserved >= quota.limit {
            let open = openFiles(in: quota)
            for closed in opened[index].subtracting(open) {
                var status = stat()
                if lstat(quota.hostPath(of: closed), &status) == 0 { bytes += UInt64(max(status.st_blocks, 0)) * 512 }
            }
            opened[index] = open
            reserved = UInt64(open.count) * quota.fileLimit
            // Still at the limit: walk again before refusing (what was removed since counts too). A plugin that
            // keeps trying pays for each walk from its share of the monitor's time.
            if bytes + reserved >= quota.limit, at != now {
                let usage = FolderQuota.usage(of: quota.hostPath)
                (bytes, entries, at) = (usage.bytes, usage.entries, now)
            }
            measured[index] = (bytes, entries, at)
        }
        let full =
            bytes + reserved >= quota.limit
            ? "holds \(FolderQuota.size(bytes))\(reserved > 0 ? " and may grow by \(FolderQuota.size(reserved)) in files open" : ""), its limit is \(FolderQuota.size(quota.limit))"
            : quota.files.flatMap { entries >= $0 ? "holds \(entries) files and folders, its limit is \($0)" : nil }
        guard let full else {
            measured[index] = (bytes + 4096, entries + 1, at)
            opened[index].insert(path)
            return nil
        }
        return .refuse(errno: EDQUOT, SandboxDenial(call: name, act: "\(act) \(path): \(quota.what) \(full)", code: .pluginStorageLimit))
    }

    /// The regular files the child holds open for writing in `quota`'s
    /// folder, as it names them (/proc/PID/fd and fdinfo).
    private func openFiles(in quota: FolderQuota) -> Set<String> {
        guard let listing = opendir("/proc/\(process)/fd") else { return [] }
        defer { closedir(listing) }
        var files: Set<String> = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let number = Int32(name), let target = ChildPath.link("/proc/\(process)/fd/\(number)"),
                quota.covers(target.hasSuffix(" (deleted)") ? String(target.dropLast(10)) : target),
                let flags = Self.openFlags(process: process, descriptor: number), flags & O_ACCMODE != O_RDONLY
            else { continue }
            files.insert(target)
        }
        return files
    }

    /// The flags (`fcntl(F_GETFL)`) of the child's descriptor, from /proc/PID/fdinfo.
    static func openFlags(process: pid_t, descriptor: Int32) -> Int32? {
        let path = "/proc/\(process)/fdinfo/\(descriptor)"
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { Glibc.close(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(file, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }) else { return nil }
        return Int32(String(line.dropFirst("flags:".count).drop { $0 == " " || $0 == "\t" }), radix: 8)
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
        guard mode & ~0o777 == 0 else {
            return .refuse("fchmod", "set the mode \(String(mode, radix: 8)) on \(describe(descriptor: descriptor)) (set-user-id, set-group-id or sticky)", EPERM)
        }
        return onWritableFile(descriptor, "fchmod", "change the mode of") { fchmod($0, mode) }
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
        return onWritableFile(descriptor, "utimensat", "change the times of") { address == 0 ? futimens($0, nil) : futimens($0, times) }
    }

    /// `fsetxattr(descriptor, name, value, size, flags)`: a `user.` attribute
    /// (others need privileges, or speak for the system: ACLs, security
    /// labels) on a regular file the child opened for writing. Foundation's
    /// atomic writes copy a file's attributes this way.
    func setAttribute(descriptor: Int32, name: String?, value: UInt64, size: Int, flags: Int32, memory: ChildMemory) -> SandboxJudge.Verdict {
        guard let name else { return .fail(errno: EFAULT) }
        guard size <= 65536 else { return .fail(errno: E2BIG) }
        let bytes = size == 0 ? [] : memory.bytes(at: value, count: size)
        guard let bytes else { return .fail(errno: EFAULT) }
        return onWritableFile(descriptor, "fsetxattr", "set the attribute \(name.escapingControls) of", attribute: name) { file in
            graft_set_attribute(file, name, bytes, bytes.count, flags)
        }
    }

    /// `fremovexattr(descriptor, name)`: the same rule.
    func removeAttribute(descriptor: Int32, name: String?) -> SandboxJudge.Verdict {
        guard let name else { return .fail(errno: EFAULT) }
        return onWritableFile(descriptor, "fremovexattr", "remove the attribute \(name.escapingControls) of", attribute: name) { file in
            graft_remove_attribute(file, name)
        }
    }

    /// Does `change` on the child's `descriptor` when it is a regular file
    /// it opened for writing (and `attribute`, if any, a `user.` one).
    private func onWritableFile(
        _ descriptor: Int32, _ call: String, _ act: String, attribute: String? = nil, _ change: (Int32) -> Int32
    ) -> SandboxJudge.Verdict {
        if let attribute, !attribute.hasPrefix("user.") {
            // A name in no namespace of the kernel's: its own answer (Foundation tries com.apple.TextEncoding).
            guard ["trusted.", "security.", "system."].contains(where: attribute.hasPrefix) else { return .fail(errno: EOPNOTSUPP) }
            return .refuse(call, "\(act) \(describe(descriptor: descriptor)) (only user.* attributes)", EPERM)
        }
        let file: Int32
        switch take(descriptor) {
        case .failure(let verdict): return verdict
        case .success(let taken): file = taken
        }
        defer { Glibc.close(file) }
        guard Self.isWritableRegularFile(file) else {
            return .refuse(call, "\(act) \(describe(descriptor: descriptor)) (only a file it opened for writing)", EPERM)
        }
        return change(file) == 0 ? .answer(0) : .fail(errno: errno)
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
