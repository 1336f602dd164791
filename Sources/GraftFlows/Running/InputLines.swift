import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// Lines of a file, a pipe, a device or standard input, read as they come,
/// never whole: a line longer than `maximumLine` is an error naming the input
/// and the line, so an endless stream (`/dev/zero`) fails at once instead of
/// growing without bound, and a directory is refused when opened.
public final class InputLines {
    public let name: String
    public let maximumLine: Int
    private let descriptor: Int32
    private let owned: Bool
    private var pending: [UInt8] = []
    private var number = 0
    private var ended = false

    public static let defaultMaximumLine = 1 << 20

    /// Standard input.
    public init(standardInput name: String = "stdin", maximumLine: Int = InputLines.defaultMaximumLine) {
        self.name = name
        self.maximumLine = maximumLine
        descriptor = 0
        owned = false
    }

    /// The file at `path`: a regular file, a pipe or a device; not a folder.
    public init(path: String, maximumLine: Int = InputLines.defaultMaximumLine) throws(GraftError) {
        name = path
        self.maximumLine = maximumLine
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw GraftError(.invalidConfig, "cannot read \(path): \(String(cString: strerror(errno))).", path: path)
        }
        var status = stat()
        if fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(opened)
            throw GraftError(.invalidConfig, "\(path) is a folder, not a file of one JSON object per line.", path: path)
        }
        descriptor = opened
        owned = true
    }

    deinit {
        if owned { close(descriptor) }
    }

    /// The next line and its number (from 1), or nil at the end.
    public func next() throws(GraftError) -> (number: Int, line: String)? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                number += 1
                return (number, line)
            }
            guard pending.count <= maximumLine else { throw tooLong() }
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                number += 1
                return (number, String(decoding: pending, as: UTF8.self))
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw GraftError(.invalidConfig, "cannot read \(name): \(String(cString: strerror(errno))).", path: name)
            }
            if count == 0 { ended = true } else { pending += chunk[0..<count] }
        }
    }

    private func tooLong() -> GraftError {
        GraftError(
            .invalidJSON,
            "\(name):\(number + 1): the line is longer than \(maximumLine) bytes; events are one JSON object per line.",
            path: name)
    }
}
