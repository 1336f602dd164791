import CGraftSandbox
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

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

    /// The path made absolute, as written (no link resolved): relative to
    /// the folder the call names, or to the thread's working folder.
    var absolute: String? {
        guard let raw, !raw.isEmpty else { return nil }
        if raw.hasPrefix("/") { return raw }
        let base = folder.map { $0 == AT_FDCWD ? "/proc/\(thread)/cwd" : "/proc/\(process)/fd/\($0)" } ?? "/proc/\(thread)/cwd"
        return Self.link(base).map { $0 + "/" + raw }
    }

    /// The absolute real path (the last step resolved too when `following`,
    /// and when the file exists), or nil when it cannot be told.
    func resolved() -> (path: String, exists: Bool)? {
        guard var absolute else { return nil }
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
