/// Folders whose whole chain up to "/" a host found trusted in the last
/// moment, so that loading files one after another does not `stat` every
/// ancestor folder of every file again (about a fifth of loading 200 plugins
/// one by one went there).
///
/// Only a trusted verdict is kept, and only briefly. A trusted folder
/// belongs to this user or to root, and so does every folder above it: no
/// other user can change any of them, so the verdict cannot be undone by the
/// users the rule keeps out. What it does not see for up to `lifetime` is
/// this user (or root) loosening a folder's mode, which is a mistake to catch
/// on the next check, not an attack to stop mid-batch. A refusal is never
/// kept: fixing a folder's mode takes effect at once.
final class TrustedFolders: Sendable {
    static let lifetime: Duration = .seconds(1)

    private let folders = Locked<[String: ContinuousClock.Instant]>([:])

    /// Whether `folder`'s chain was found trusted less than `lifetime` ago.
    func contains(_ folder: String) -> Bool {
        let now = ContinuousClock.now
        return folders.withLock { folders in
            guard let checked = folders[folder] else { return false }
            if now - checked < Self.lifetime { return true }
            folders[folder] = nil
            return false
        }
    }

    /// Keeps `folder`, whose whole chain was just found trusted.
    func insert(_ folder: String) {
        let now = ContinuousClock.now
        folders.withLock { $0[folder] = now }
    }
}
