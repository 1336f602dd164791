import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Who may have written a plugin, after OpenPAM and sudo: a plugin file must
/// belong to this process's effective user or to root and be writable by its
/// owner alone; every folder above it must belong to this user or to root
/// and, if anyone may write to it, carry the sticky bit (as /tmp does).
/// Anything else could have been planted or changed by another user, so it is
/// refused with `untrusted_plugin` before any of its code runs.
public struct TrustPolicy: Sendable, Hashable {
    /// Whether files and folders that fail the rules load anyway (development
    /// only: every such file is still logged at warning level).
    public var allowsUntrusted: Bool

    public init(allowsUntrusted: Bool = false) {
        self.allowsUntrusted = allowsUntrusted
    }

    public static let strict = TrustPolicy()

    /// The first rule `file` breaks, or nil. `folders` caches the verdict on
    /// each folder across a scan.
    package func violation(of file: PluginFile, folders: inout [String: String?]) -> GraftError? {
        violation(path: file.path, realPath: file.realPath, owner: file.owner, mode: file.mode, folders: &folders)
    }

    /// The same rules from what `stat` says of the file at `realPath`, for
    /// `user` (this process's effective user, which a caller checking many
    /// files asks for once).
    func violation(
        path: String, realPath: String, owner: uid_t, mode: mode_t, user: uid_t = geteuid(), folders: inout [String: String?]
    ) -> GraftError? {
        if let violation = fileViolation(path: path, realPath: realPath, owner: owner, mode: mode, user: user) { return violation }
        if let reason = Self.chainViolation(Self.parent(of: realPath), user: user, folders: &folders) {
            return refuse(path, reason)
        }
        return nil
    }

    /// The rules on the file itself (its owner and mode), not on its folders:
    /// enough when its folder's chain is known to be trusted.
    func fileViolation(path: String, realPath: String, owner: uid_t, mode: mode_t, user: uid_t = geteuid()) -> GraftError? {
        if owner != user && owner != 0 {
            return refuse(path, "\(realPath) is owned by user \(owner), not by this user (\(user)) or root")
        }
        if mode & (S_IWGRP | S_IWOTH) != 0 {
            return refuse(path, "\(realPath) has mode \(Self.octal(mode)): others can write to it (chmod go-w to trust it)")
        }
        return nil
    }

    /// The first rule broken by `folder` or any folder above it; `folders`
    /// remembers the answer for each folder's whole chain, so files that
    /// share folders cost one lookup each.
    private static func chainViolation(_ folder: String, user: uid_t, folders: inout [String: String?]) -> String? {
        if let known = folders[folder] { return known }
        let verdict = folderViolation(folder, user: user) ?? (folder == "/" ? nil : chainViolation(parent(of: folder), user: user, folders: &folders))
        folders[folder] = .some(verdict)
        return verdict
    }

    private func refuse(_ path: String, _ reason: String) -> GraftError {
        GraftError(
            .untrustedPlugin,
            "\(path) is not trusted: \(reason). Only files that no other user could have written are loaded; --allow-untrusted (TrustPolicy(allowsUntrusted: true)) loads it anyway, for development.",
            path: path)
    }

    private static func folderViolation(_ folder: String, user: uid_t) -> String? {
        var status = stat()
        guard stat(folder, &status) == 0 else { return "its folder \(folder) cannot be examined" }
        if status.st_uid != user && status.st_uid != 0 {
            return "its folder \(folder) is owned by user \(status.st_uid), not by this user (\(user)) or root"
        }
        if status.st_mode & S_IWOTH != 0 && status.st_mode & S_ISVTX == 0 {
            return "its folder \(folder) has mode \(octal(status.st_mode)): anyone can write to it and it lacks the sticky bit"
        }
        return nil
    }

    static func parent(of path: String) -> String {
        guard let slash = FilePaths.lastSlash(in: path), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}
