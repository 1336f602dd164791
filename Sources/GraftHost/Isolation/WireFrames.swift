/// Whole frames out of a byte stream, whatever sizes its reads come in: the
/// one splitter that the host's reader (socket or ring), the child's reader
/// and the in-memory transport share. Bytes in, frames out, no I/O; the
/// `fuzz-wire` target feeds it garbage.
struct WireFrames {
    /// Bytes received and not yet taken, from `start` on.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the last frame taken ended in the stream.
    private(set) var taken: UInt64 = 0

    var isEmpty: Bool { start == buffer.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        compact()
        buffer += bytes
    }

    /// The next whole frame, taken; nil until one is whole. A header that
    /// breaks the protocol (its magic, version, kind or length) throws, and
    /// stays where it is.
    mutating func next() throws(Wire.Violation) -> (header: Wire.Header, payload: [UInt8])? {
        guard let header = try peek() else { return nil }
        let payloadStart = start + Wire.headerSize
        let payload = Array(buffer[payloadStart..<payloadStart + header.length])
        start = payloadStart + header.length
        taken += UInt64(Wire.headerSize + header.length)
        return (header, payload)
    }

    /// The next frame's header when the whole frame is here, without taking it.
    func peek() throws(Wire.Violation) -> Wire.Header? {
        guard buffer.count - start >= Wire.headerSize else { return nil }
        let header = try Wire.header(buffer[start..<start + Wire.headerSize])
        return buffer.count - start - Wire.headerSize >= header.length ? header : nil
    }

    /// The first `count` bytes of the next frame's payload (when whole: see `peek`).
    func peekPayload(_ count: Int) -> ArraySlice<UInt8> {
        let payloadStart = start + Wire.headerSize
        return buffer[payloadStart..<min(payloadStart + count, buffer.count)]
    }

    /// Drops what was taken, before the buffer grows (not per frame: a read
    /// may hold many).
    private mutating func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(start)
        }
        start = 0
    }
}
