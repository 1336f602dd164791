import CGraft

/// Collects what a plugin writes through a `graft_writer_t` during one call,
/// up to a limit, so a runaway plugin cannot exhaust the host's memory. An
/// instance reuses one across its renders (`reset`), keeping a small buffer.
/// `@unchecked Sendable`: one call at a time writes into a writer (an
/// instance's calls are serialized); spares change hands under their lock.
package final class OutputWriter: @unchecked Sendable {
    static let defaultLimit = 16 << 20
    /// A buffer kept between uses up to this size (a live instance holds
    /// one); a larger one is let go.
    static let keptCapacity = 4 << 10

    package private(set) var bytes: [UInt8] = []
    package private(set) var mediaType: String?
    package private(set) var overflowed = false
    private(set) var limit: Int

    package init(limit: Int = OutputWriter.defaultLimit) {
        self.limit = limit
    }

    /// Writers that closed instances gave back: a new instance's first render
    /// takes one instead of allocating a writer and growing its buffer again.
    private static let spares = Locked<[OutputWriter]>([])
    private static let maximumSpares = 16

    /// A spare writer, or a new one: `reset` it for a call.
    static func take() -> OutputWriter { spares.withLock { $0.popLast() } ?? OutputWriter() }

    /// Gives `writer` back once its instance is closed; its buffer is kept
    /// only up to `keptCapacity`.
    static func giveBack(_ writer: OutputWriter) {
        if writer.bytes.capacity > keptCapacity { writer.bytes = [] }
        spares.withLock { spares in
            if spares.count < maximumSpares { spares.append(writer) }
        }
    }

    /// Ready for another call, with `limit`.
    func reset(limit: Int) {
        if bytes.capacity > Self.keptCapacity { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        mediaType = nil
        overflowed = false
        self.limit = limit
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Calls `body` with a writer valid for the duration of the call.
    package func withWriter<R>(_ body: (UnsafePointer<graft_writer_t>) throws -> R) rethrows -> R {
        var writer = graft_writer_t()
        writer.host_data = Unmanaged.passUnretained(self).toOpaque()
        writer.write = { writer, data, length in
            guard let state = writer?.pointee.host_data else { return false }
            let output = Unmanaged<OutputWriter>.fromOpaque(state).takeUnretainedValue()
            guard length > 0 else { return true }
            guard let data, !output.overflowed, output.bytes.count + length <= output.limit else {
                output.overflowed = true
                return false
            }
            output.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return true
        }
        writer.set_media_type = { writer, mediaType in
            guard let state = writer?.pointee.host_data, let mediaType else { return }
            Unmanaged<OutputWriter>.fromOpaque(state).takeUnretainedValue().mediaType = String(cString: mediaType)
        }
        return try withUnsafePointer(to: &writer) { try body($0) }
    }
}
