#if canImport(Glibc)
import Glibc
#endif

/// What makes a plugin file the same file: its device and inode, and for the
/// registry cache and quarantine also its size and change times, so that a
/// rebuilt file (new inode, or the same inode rewritten) is a new entry.
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    package var size: Int64
    /// st_mtime and st_ctime in nanoseconds since the epoch.
    var modified: Int64
    var changed: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    init(_ status: stat) {
        self.init(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            changed: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec))
    }

    /// The file itself, whatever its contents: hard links and symlinks to one
    /// file share it.
    package var file: FileKey { FileKey(device: device, inode: inode) }
}

/// A file's device and inode: one plugin is one file.
struct FileKey: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
}
