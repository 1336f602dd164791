import CGraftSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A folder of a child's on the host's disk that the host keeps under a
/// size: a plugin's data folder (kept between runs), or a private folder
/// where the kernel gave the child no tmpfs of its own. The kernel knows no
/// limit for a folder, so the host measures it (`graft_tree_usage`: every
/// entry's blocks, at least 4 KiB each) when the child asks to write or
/// create in it, and refuses that with `EDQUOT` once it holds its limit: a
/// `plugin_storage_limit` report. A file already open can still grow up to
/// the child's file-size limit (RLIMIT_FSIZE, which the data limit lowers).
package struct FolderQuota: Sendable {
    /// The folder as the child names it, and where it is on the host's disk.
    let childPath: String
    let hostPath: String
    let limit: UInt64
    /// At most this many files and folders too (nil: only `limit`, where each counts as 4 KiB).
    var files: UInt64? = nil
    /// The most one file may hold (the child's RLIMIT_FSIZE).
    var fileLimit: UInt64 = 0
    /// "its data folder", "its private folder".
    let what: String

    /// Whether `path`, as /proc names a file the child holds open (or as the child wrote it), lies in the folder.
    func covers(_ path: String) -> Bool {
        path == childPath || path.hasPrefix(childPath + "/") || path == hostPath || path.hasPrefix(hostPath + "/")
    }

    /// Where the child's `path` in the folder is on the host's disk.
    func hostPath(of path: String) -> String {
        path == childPath || path.hasPrefix(childPath + "/") ? hostPath + path.dropFirst(childPath.count) : path
    }

    /// What the folder holds now: bytes (blocks, each entry at least 4 KiB)
    /// and entries; the walk stops once it has counted more than `limit`
    /// bytes (a folder past its limit costs no more to measure than the limit).
    package static func usage(of path: String, upTo limit: UInt64 = .max) -> (bytes: UInt64, entries: UInt64) {
        var bytes: UInt64 = 0, entries: UInt64 = 0
        _ = graft_tree_usage(AT_FDCWD, path, limit, &bytes, &entries)
        return (bytes, entries)
    }

    /// "64 MiB", "1.5 KiB": a size for people.
    package static func size(_ bytes: UInt64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }
}
