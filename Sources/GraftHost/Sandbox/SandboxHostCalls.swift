import CGraftSandbox
import CGraftSystem
import FoundationEssentials
import GraftSupport

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
    /// The child's folders on the host's disk kept under a size.
    private let quotas: [FolderQuota]
    /// Per quota, what the host knows of the folder: what it held at its last
    /// walk, the entries the child made since (4 KiB each), and how many
    /// files may be open for writing in it (those the last look at the
    /// child's descriptors found there, plus every file opened for writing
    /// since, wherever its path said).
    private var folders: [Folder]
    /// `walked.written`: what the child had written by then (`wchar` of
    /// /proc/PID/io: every byte any `write`, `sendfile` or `copy_file_range` of its moved).
    private struct Folder {
        var walked: (bytes: UInt64, entries: UInt64, at: ContinuousClock.Instant, written: UInt64?)
        var made: UInt64 = 0
        var openForWriting = 0
    }

    init(process: pid_t, quotas: [FolderQuota] = []) {
        self.process = process
        self.quotas = quotas
        folders = []
    }

    /// Whether any folder of the child's is kept under a size.
    var hasQuotas: Bool { !quotas.isEmpty }

    /// A refusal when a folder of the child's is at its limit, else nil,
    /// for any write or file it asks to make, wherever its path says (a path
    /// has many spellings, and another thread may rewrite it after the host
    /// reads it: so no path is trusted to say which folder a file is in).
    ///
    /// The host cannot see a write, so it bounds what the folder may hold:
    /// what its last walk found, plus 4 KiB per entry made since, plus every
    /// byte the child has written anywhere since (the kernel counts them),
    /// plus what each file open for writing there may still grow by, up to
    /// its file-size limit (RLIMIT_FSIZE). When that bound reaches the limit
    /// the host looks at the child's descriptors (cheap), then walks the
    /// folder again (the walk stopping past the limit), and refuses only if
    /// the walk agrees; it also walks once a second. So a plugin that makes
    /// ten thousand small files is walked a handful of times, not once per
    /// file; one that opens a hundred empty files to fill them at once is
    /// refused the fifth; the file opened last can take the folder past its
    /// limit by at most its file-size limit. What a plugin writes through a
    /// memory map of a file it has closed is seen at the next walk, within a
    /// second. A plugin whose data folder is full writes nothing, anywhere,
    /// until it removes something.
    func storage(_ path: String?, _ name: String, act: String) -> SandboxJudge.Verdict? {
        let now = ContinuousClock.now
        let written = self.written()
        if folders.isEmpty { folders = quotas.map { Folder(walked: Self.walk($0, now, written), openForWriting: openFiles(in: $0).count) } }
        for index in quotas.indices {
            let quota = quotas[index]
            if now - folders[index].walked.at > .seconds(1) {
                // Files still open for writing there stay counted: they may grow whatever the walk found.
                folders[index] = Folder(walked: Self.walk(quota, now, written), openForWriting: openFiles(in: quota).count)
            }
            if isFull(index, written) {
                folders[index].openForWriting = openFiles(in: quota).count
                if isFull(index, written), folders[index].walked.at != now {
                    folders[index].walked = Self.walk(quota, now, written)
                    folders[index].made = 0
                }
            }
            let folder = folders[index]
            let bytes = bound(index, written) - UInt64(folder.openForWriting) * quota.fileLimit
            let reserved = UInt64(folder.openForWriting) * quota.fileLimit
            let entries = folder.walked.entries + folder.made
            let full =
                bytes + reserved >= quota.limit
                ? "holds \(FolderQuota.size(bytes))\(reserved > 0 ? " and may grow by \(FolderQuota.size(reserved)) in files open" : ""), its limit is \(FolderQuota.size(quota.limit))"
                : quota.files.flatMap { entries >= $0 ? "holds \(entries) files and folders, its limit is \($0)" : nil }
            if let full {
                return .refuse(
                    errno: EDQUOT, SandboxDenial(call: name, act: "\(act) \(path ?? "a file"): \(quota.what) \(full)", code: .pluginStorageLimit))
            }
        }
        for index in folders.indices {
            folders[index].made += 1
            folders[index].openForWriting += 1
        }
        return nil
    }

    /// Whether folder `index` may be at its limit, of bytes or of entries, as far as the host knows.
    private func isFull(_ index: Int, _ written: UInt64?) -> Bool {
        bound(index, written) >= quotas[index].limit
            || quotas[index].files.map { folders[index].walked.entries + folders[index].made >= $0 } == true
    }

    /// The most folder `index` may hold, as far as the host knows. Where
    /// /proc does not say what the child wrote, each file opened for
    /// writing since the walk may have grown to its file-size limit.
    private func bound(_ index: Int, _ written: UInt64?) -> UInt64 {
        let folder = folders[index], fileLimit = quotas[index].fileLimit
        let grown =
            if let written, let before = folder.walked.written { written >= before ? written - before : 0 } else { folder.made * fileLimit }
        return folder.walked.bytes + folder.made * 4096 + grown + UInt64(folder.openForWriting) * fileLimit
    }

    private static func walk(_ quota: FolderQuota, _ now: ContinuousClock.Instant, _ written: UInt64?)
        -> (bytes: UInt64, entries: UInt64, at: ContinuousClock.Instant, written: UInt64?)
    {
        let usage = FolderQuota.usage(of: quota.hostPath, upTo: quota.limit)
        return (usage.bytes, usage.entries, now, written)
    }

    /// The bytes the child has written so far, and allocated (fallocate,
    /// which the kernel does not count as written), or nil where /proc will not say.
    private func written() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/io", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
            let written = UInt64(String(line.dropFirst(6).filter(\.isNumber)))
        else { return nil }
        return written &+ allocated
    }

    /// What the child allocated with fallocate (mode 0), asked of the host.
    private var allocated: UInt64 = 0
    func allocate(_ bytes: UInt64) { allocated &+= bytes }

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

    /// Whether the child may make one more memory file (memfd) and hold at
    /// most `limit`; counted as made if so. The host counts those it allowed
    /// since it last looked at the child's descriptors, and looks again
    /// only when that count could reach the limit: a scanner that maps each
    /// plugin from a memory file it closes once mapped is looked at once
    /// every `limit` plugins, not once per plugin.
    func makesMemoryFile(limit: Int) -> Bool {
        if memoryFilesSeen + memoryFilesSince >= limit {
            memoryFilesSeen = memoryFiles()
            memoryFilesSince = 0
        }
        guard memoryFilesSeen + memoryFilesSince < limit else { return false }
        memoryFilesSince += 1
        return true
    }
    private var memoryFilesSeen = 0, memoryFilesSince = 0

    /// How many memory files (memfd) the child holds.
    private func memoryFiles() -> Int {
        guard let listing = opendir("/proc/\(process)/fd") else { return 0 }
        defer { closedir(listing) }
        var count = 0
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if Int32(name) != nil, ChildPath.link("/proc/\(process)/fd/\(name)")?.hasPrefix("/memfd:") == true { count += 1 }
        }
        return count
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
