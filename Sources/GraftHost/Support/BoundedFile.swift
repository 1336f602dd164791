import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole document (a flow, a lock file) from a path, never more than
/// `limit` bytes: a folder is refused by name, and a device or a pipe that
/// never ends (`/dev/zero`) fails at the limit instead of growing the
/// process. Errors carry `code` and name the file.
package enum BoundedFile {
    static let defaultLimit = 16 << 20

    package static func text(
        at path: String, what: String, code: GraftError.Code, limit: Int = defaultLimit
    ) throws(GraftError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw GraftError(code, "cannot read \(what) \(path): \(String(cString: strerror(errno))).", path: path)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw GraftError(code, "cannot read \(what) \(path): it is a folder, not a file.", path: path)
        }
        // A buffer of the size `stat` says, one byte more to see a file that
        // grew; a fixed 64 KiB chunk cost a small file's reader a page fault
        // per 4 KiB it never used.
        let expected = (status.st_mode & S_IFMT) == S_IFREG ? min(Int(max(status.st_size, 0)), limit) : 0
        var bytes = [UInt8](repeating: 0, count: max(expected + 1, 4096))
        var count = 0
        while true {
            if count == bytes.count { bytes += [UInt8](repeating: 0, count: min(bytes.count, 1 << 20)) }
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw GraftError(code, "cannot read \(what) \(path): \(String(cString: strerror(errno))).", path: path)
            }
            if got == 0 { break }
            count += got
            guard count <= limit else {
                throw GraftError(code, "\(what) \(path) is larger than \(limit >> 20) MiB; it was not read further.", path: path)
            }
        }
        bytes.removeSubrange(count...)
        return String(decoding: bytes, as: UTF8.self)
    }
}
