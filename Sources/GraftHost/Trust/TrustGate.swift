#if canImport(Glibc)
import Glibc
#endif

/// The one way a host asks whether a file may load under its `TrustPolicy`:
/// every load path (the quick path from the cache, the scan ahead, a load,
/// a runner's open, a first mapping and a hot swap) comes here, with the
/// folders found trusted a moment ago remembered across them.
final class TrustGate: Sendable {
    let policy: TrustPolicy
    /// Folders whose whole chain up to "/" this host found trusted in the
    /// last `trustedLifetime`, so that loading files one after another does
    /// not `stat` every ancestor folder of every file again (about a fifth of
    /// loading 200 plugins one by one went there).
    ///
    /// Only a trusted verdict is kept, and only briefly. A trusted folder
    /// belongs to this user or to root, and so does every folder above it: no
    /// other user can change any of them, so the verdict cannot be undone by
    /// the users the rule keeps out. What it does not see for up to
    /// `trustedLifetime` is this user (or root) loosening a folder's mode,
    /// which is a mistake to catch on the next check, not an attack to stop
    /// mid-batch. A refusal is never kept: fixing a folder's mode takes
    /// effect at once.
    private let trustedFolders = Locked<[String: ContinuousClock.Instant]>([:])
    static let trustedLifetime: Duration = .seconds(1)

    init(_ policy: TrustPolicy) { self.policy = policy }

    /// The first rule the file breaks, from what `stat` says of it, or nil.
    /// `user` is this process's effective user, asked once by a caller
    /// checking many files.
    func violation(path: String, realPath: String, owner: uid_t, mode: mode_t, user: uid_t = geteuid()) -> GraftError? {
        let folder = TrustPolicy.parent(of: realPath)
        let now = ContinuousClock.now
        let trusted = trustedFolders.withLock { folders in
            if let checked = folders[folder], now - checked < Self.trustedLifetime { return true }
            folders[folder] = nil
            return false
        }
        if trusted { return policy.fileViolation(path: path, realPath: realPath, owner: owner, mode: mode, user: user) }
        var folders: [String: String?] = [:]
        let violation = policy.violation(path: path, realPath: realPath, owner: owner, mode: mode, user: user, folders: &folders)
        // The file's own folder stands for its whole chain.
        if let verdict = folders[folder], verdict == nil { trustedFolders.withLock { $0[folder] = .now } }
        return violation
    }

    func violation(of file: PluginFile) -> GraftError? {
        violation(path: file.path, realPath: file.realPath, owner: file.owner, mode: file.mode)
    }

    /// Whether a file with this verdict loads: trusted, or untrusted files allowed.
    func admits(_ violation: GraftError?) -> Bool { violation == nil || policy.allowsUntrusted }
}
