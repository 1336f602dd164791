#if canImport(Glibc)
import Glibc
#endif

/// Path strings taken apart and put together, as Graft's modules need them
/// (FoundationEssentials has no `NSString` path methods).
package enum FilePaths {
    /// "b.so" for "/a/b.so"; "/" for "/".
    package static func lastComponent(of path: String) -> String {
        let trimmed = trailingSlashesRemoved(path)
        guard trimmed != "/" else { return "/" }
        return lastSlash(in: trimmed).map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
    }

    /// "/a" for "/a/b.so", "/" for "/a", "." for "b.so".
    package static func folder(of path: String) -> String {
        let trimmed = trailingSlashesRemoved(path)
        guard let slash = lastSlash(in: trimmed) else { return "." }
        let folder = trailingSlashesRemoved(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// Where the last "/" is: searched in the UTF-8 bytes, not Character by
    /// Character (grapheme breaking made it a visible part of loading a
    /// cached plugin). A "/" byte is always a whole character of its own.
    package static func lastSlash(in path: String) -> String.Index? {
        path.utf8.lastIndex(of: UInt8(ascii: "/"))
    }

    /// `name` under `folder`, with one slash between.
    package static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// `~` expanded (from `HOME`), repeated and trailing slashes dropped, and
    /// in an absolute path `.` and `..` taken away by name (no symlink is
    /// followed). A relative path keeps its `..`s: where it starts is not known here.
    package static func standardized(_ path: String, home: String? = homeFolder) -> String {
        var path = path
        if let home, path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case "." where absolute || !parts.isEmpty: continue
            case "..":
                if absolute {
                    _ = parts.popLast()
                } else if let last = parts.last, last != "..", last != "." {
                    parts.removeLast()
                } else {
                    parts.append(part)
                }
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? (path.isEmpty ? "" : ".") : joined
    }

    /// The path with every symlink resolved (`realpath`), or the path as
    /// standardized when it does not exist.
    package static func resolvingSymlinks(_ path: String) -> String {
        realPath(path) ?? standardized(path)
    }

    /// The path with every symlink resolved (`realpath`), or nil when it cannot be.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    package static var homeFolder: String? {
        getenv("HOME").map { String(cString: $0) }
    }

    /// `$TMPDIR`, else /tmp.
    package static var temporaryFolder: String {
        ProcessEnvironment.value("TMPDIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// A new folder `PREFIX-XXXXXX` (mode 0700) in `parent`, by default the
    /// temporary folder; nil (errno set) when it cannot be made.
    package static func makeTemporaryFolder(prefix: String, in parent: String = temporaryFolder) -> String? {
        var template = Array((parent + "/" + prefix + "-XXXXXX").utf8CString)
        return mkdtemp(&template).map { String(cString: $0) }
    }

    /// Makes `path` and the folders above it that are missing (new ones get
    /// `mode`); true when it is a folder afterwards.
    package static func makeFolders(_ path: String, mode: mode_t) -> Bool {
        var information = stat()
        if stat(path, &information) == 0 { return (information.st_mode & S_IFMT) == S_IFDIR }
        let parent = folder(of: path)
        if parent != path && parent != "/" && !makeFolders(parent, mode: mode) { return false }
        return mkdir(path, mode) == 0 || errno == EEXIST
    }

    private static func trailingSlashesRemoved(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
