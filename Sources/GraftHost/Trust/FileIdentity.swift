#if canImport(Glibc)
import Glibc
#endif

/// What makes a plugin file the same file: its device and inode, and for the
/// registry cache and quarantine also its size and change times, so that a
/// rebuilt file (new inode, or the same inode rewritten) is a new entry.
public struct FileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// st_mtime and st_ctime in nanoseconds since the epoch.
    public var modified: Int64
    public var changed: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
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
    public var file: FileKey { FileKey(device: device, inode: inode) }
}

/// A file's device and inode: one plugin is one file.
public struct FileKey: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
}
