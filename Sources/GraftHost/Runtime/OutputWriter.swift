import CGraft

/// Collects what a plugin writes through a `graft_writer_t` during one call,
/// up to a limit, so a runaway plugin cannot exhaust the host's memory. An
/// instance reuses one across its renders (`reset`), keeping a small buffer.
package final class OutputWriter {
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
