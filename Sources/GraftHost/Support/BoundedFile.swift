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
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw GraftError(code, "cannot read \(what) \(path): \(String(cString: strerror(errno))).", path: path)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else {
                throw GraftError(code, "\(what) \(path) is larger than \(limit >> 20) MiB; it was not read further.", path: path)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
