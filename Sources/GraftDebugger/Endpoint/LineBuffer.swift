/// Splits a byte stream into lines (`\n`, an optional `\r` before it is
/// dropped) and refuses to hold a line longer than `limit` bytes, so a
/// client cannot make the host buffer without end.
struct LineBuffer {
    let limit: Int
    private var pending: [UInt8] = []
    /// Bytes of `pending` already known to hold no newline.
    private var scanned = 0

    init(limit: Int) {
        self.limit = limit
    }

    enum Outcome: Equatable {
        case lines([String])
        /// More than `limit` bytes arrived without a newline.
        case lineTooLong
    }

    /// Adds `bytes` and returns the complete lines they finish, in order.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        pending.append(contentsOf: bytes)
        var lines: [String] = []
        var start = 0
        var from = scanned
        while let newline = pending[from...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start, pending[end - 1] == 0x0D { end -= 1 }
            guard end - start <= limit else { return .lineTooLong }
            lines.append(String(decoding: pending[start..<end], as: UTF8.self))
            start = newline + 1
            from = start
        }
        pending.removeFirst(start)
        scanned = pending.count
        return pending.count > limit ? .lineTooLong : .lines(lines)
    }

    /// Whether bytes of an unfinished line are held.
    var hasPartialLine: Bool { !pending.isEmpty }

    mutating func append(_ text: String) -> Outcome {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { append(UnsafeRawBufferPointer($0)) }
    }
}
