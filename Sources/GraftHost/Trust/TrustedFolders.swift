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

    /// The folders trusted less than `lifetime` ago, as `TrustPolicy`'s
    /// per-scan memo holds them (a nil reason each).
    func recent() -> [String: String?] {
        let now = ContinuousClock.now
        return folders.withLock { folders in
            var recent: [String: String?] = [:]
            for (folder, checked) in folders where now - checked < Self.lifetime { recent[folder] = .some(nil) }
            if recent.count < folders.count { folders = folders.filter { now - $0.value < Self.lifetime } }
            return recent
        }
    }

    /// Keeps the folders `memo` found trusted (newly or again).
    func remember(_ memo: [String: String?], from recent: [String: String?]) {
        let now = ContinuousClock.now
        folders.withLock { folders in
            for (folder, verdict) in memo where verdict == nil && recent[folder] == nil { folders[folder] = now }
        }
    }
}
