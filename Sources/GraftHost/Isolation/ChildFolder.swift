import CGraftSystem
import FoundationEssentials
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A sandboxed child's private folder (`graft-child-PID-XXXXXX`, mode 0700,
/// in this user's `$TMPDIR/graft-UID`): its TMPDIR and HOME, removed when the
/// child is reaped. A host does not always get to reap: the command line exits with
/// its children running, and a host can be killed. So the host holds an
/// exclusive `flock` on each folder while it lives and removes the ones
/// still there (and the parent, if empty) when it exits; the first child a
/// host starts sweeps away, on a thread of its own, the folders nobody holds
/// any more.
final class ChildFolder: @unchecked Sendable {
    let path: String
    /// Open on the folder, holding its lock until `remove`; -2 after.
    private var descriptor: Int32

    static let prefix = "graft-child-"

    /// Folders of this process not removed yet, for `atexit`.
    private static let live = Locked<[String]>([])
    private static let sweptOnce = Atomic<Bool>(false)
    /// One folder made ahead for the next sandboxed child (`makeSpare`).
    private static let spare = Locked<ChildFolder?>(nil)
    /// Whom a root host's child runs as, who owns the folder.
    private let owner: [UInt32]

    /// A folder for a child of `executable`: the spare one, or a new one.
    static func take(for executable: String, owner: SandboxPolicy) throws(GraftError) -> ChildFolder {
        let ready = spare.withLock { spare -> ChildFolder? in
            guard let folder = spare, folder.owner == [owner.runAsUser, owner.runAsGroup] else { return nil }
            spare = nil
            return folder
        }
        if let ready { return ready }
        return try ChildFolder(for: executable, owner: owner)
    }

    /// Makes the next sandboxed child's folder now, while a child starts and
    /// its host waits for the hello: the next start saves the mkdir, the
    /// lchown and the lock (about 0.1 ms of each). A host keeps at most
    /// one, removed with the others when it exits.
    static func makeSpare(for executable: String, owner: SandboxPolicy) {
        guard spare.withLock({ $0 == nil }), let folder = try? ChildFolder(for: executable, owner: owner) else { return }
        let unneeded = spare.withLock { spare -> ChildFolder? in
            guard spare == nil else { return folder }
            spare = folder
            return nil
        }
        unneeded?.remove()
    }

    /// A new folder for a child of `executable`, locked. A root host's child
    /// runs as `owner`'s unprivileged user, which gets the folder (where the
    /// child has no tmpfs of its own, it writes there).
    init(for executable: String, owner: SandboxPolicy) throws(GraftError) {
        self.owner = [owner.runAsUser, owner.runAsGroup]
        var parent = Self.parent()
        var made = FilePaths.makeTemporaryFolder(prefix: Self.prefix + String(getpid()), in: parent)
        if made == nil && errno == ENOENT {
            // Another host, exiting, removed the empty parent in between: once more.
            parent = Self.parent()
            made = FilePaths.makeTemporaryFolder(prefix: Self.prefix + String(getpid()), in: parent)
        }
        guard let path = made else {
            throw GraftError(
                .scannerUnavailable,
                "could not create a private folder for \(executable) in the temporary folder: \(String(cString: strerror(errno))).",
                path: executable)
        }
        self.path = path
        if geteuid() == 0 { _ = lchown(path, owner.runAsUser, owner.runAsGroup) }
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 { _ = flock(descriptor, LOCK_EX) }
        Self.live.withLock { $0.append(path) }
        if !Self.sweptOnce.exchange(true, ordering: .relaxed) {
            // Not waiting for the lock: a thread that holds it as the process exits must not hang the exit.
            // The parent goes too when no other host uses it (rmdir refuses one that is not empty).
            atexit {
                _ = ChildFolder.live.withLockIfAvailable { paths in paths.forEach(ChildFolder.removeTree) }
                rmdir(ChildFolder.ownFolder)
            }
            startThread(named: "graft.sweep") { [parent] in Self.sweep(parent) }
        }
    }

    /// This user's folder of child folders, `$TMPDIR/graft-UID` (made 0700,
    /// or 0711 for root, whose children run as another user and must cross
    /// it), so that a sweep lists Graft's folders only; the temporary folder
    /// itself when that name is someone else's.
    static func parent() -> String {
        let mine = ownFolder
        let mode: mode_t = geteuid() == 0 ? 0o711 : 0o700
        if mkdir(mine, mode) == 0 { chmod(mine, mode) }  // whatever the umask
        var status = stat()
        guard lstat(mine, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(),
            status.st_mode & 0o066 == 0
        else { return FilePaths.temporaryFolder }
        if status.st_mode & 0o777 != mode { chmod(mine, mode) }
        return mine
    }

    /// `$TMPDIR/graft-UID`, whoever made it.
    private static var ownFolder: String { FilePaths.temporaryFolder + "/graft-\(geteuid())" }

    deinit { remove() }

    /// Removes the folder and what the child left in it (once; used by one thread at a time).
    func remove() {
        guard descriptor != -2 else { return }
        Self.live.withLock { $0.removeAll { $0 == path } }
        Self.removeTree(path)
        if descriptor >= 0 { close(descriptor) }
        descriptor = -2
    }

    /// Removes what the child left, whatever it made (see `graft_remove_tree`):
    /// most leave nothing, and the walk costs one rmdir then.
    private static func removeTree(_ path: String) {
        _ = graft_remove_path(path)
    }

    /// Removes the child folders in `parent` that this user owns (for root,
    /// in a folder of root's own, also those its children's user owns:
    /// nobody else could have made them there), that are older than `age`
    /// seconds, whose host (the PID in the name) has ended, and whose lock
    /// nobody holds (a host in another PID namespace holds its own); returns how many.
    @discardableResult
    static func sweep(_ parent: String, olderThan age: time_t = 2, childUser: uid_t = 65534) -> Int {
        var removed = 0
        let now = time(nil)
        var parentStatus = stat()
        let ownParent = lstat(parent, &parentStatus) == 0 && parentStatus.st_uid == geteuid() && parentStatus.st_mode & 0o022 == 0
        let owners: Set<uid_t> = geteuid() == 0 && ownParent ? [0, childUser] : [geteuid()]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            let host = name.dropFirst(prefix.count).prefix { $0.isNumber }
            if let host = pid_t(host), kill(host, 0) == 0 || errno == EPERM { continue }
            let path = parent + "/" + name
            let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            defer { close(folder) }
            var information = stat()
            guard fstat(folder, &information) == 0, owners.contains(information.st_uid),
                now - information.st_ctim.tv_sec >= age, flock(folder, LOCK_EX | LOCK_NB) == 0
            else { continue }
            removeTree(path)
            removed += 1
        }
        return removed
    }
}
