import FoundationEssentials
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Makes sure the endpoint may create its socket at a path, and never
/// clobbers anything to do so:
///
/// - the folder must exist, belong to this user and be writable by no one
///   else (so no one else can swap the socket for their own);
/// - nothing at the path: fine;
/// - a socket nobody listens on (connecting is refused: a host that died
///   without cleaning up): stale, removed;
/// - a socket someone listens on, or anything that is not a socket (a
///   regular file, a folder, a symlink): refused with `permission_denied`.
enum SocketPathClaim {
    static func claim(_ path: String) throws(GraftError) {
        try checkFolder(of: path)
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw UnixSocket.failure("cannot inspect the socket path \(path)", path: path)
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw GraftError(
                .endpointUnavailable,
                "\(path) exists and is not a socket; the debug endpoint never replaces it. Remove it or choose another path.",
                path: path)
        }
        guard try isStale(path) else {
            throw GraftError(
                .endpointUnavailable, "\(path) is a socket another process is listening on; choose another path.", path: path)
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw UnixSocket.failure("cannot remove the stale socket \(path)", path: path)
        }
    }

    /// True when connecting is refused: a socket file left behind by a
    /// process that no longer listens.
    private static func isStale(_ path: String) throws(GraftError) -> Bool {
        let probe = try UnixSocket.make(nonBlocking: true)
        defer { close(probe) }
        let result = try UnixSocket.connect(probe, to: path)
        switch result {
        case ECONNREFUSED: return true
        case 0, EAGAIN, EINPROGRESS: return false  // someone is listening (or its backlog is full)
        default:
            errno = result
            throw UnixSocket.failure("cannot tell whether \(path) is in use", path: path)
        }
    }

    private static func checkFolder(of path: String) throws(GraftError) {
        let folder = FilePaths.folder(of: path)
        let folderPath = folder.isEmpty ? "." : folder
        var status = stat()
        guard stat(folderPath, &status) == 0 else {
            throw UnixSocket.failure("cannot use the folder \(folderPath) for the debug socket", path: path)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw GraftError(.endpointUnavailable, "\(folderPath) is not a folder; the debug socket goes in a folder you own.", path: path)
        }
        guard status.st_uid == geteuid() else {
            throw GraftError(
                .endpointUnavailable,
                "\(folderPath) belongs to another user (uid \(status.st_uid)); put the debug socket in a folder you own, such as $XDG_RUNTIME_DIR.",
                path: path)
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw GraftError(
                .endpointUnavailable,
                "\(folderPath) is writable by other users, who could replace the debug socket; use a folder only you can write to (chmod go-w).",
                path: path)
        }
    }
}
