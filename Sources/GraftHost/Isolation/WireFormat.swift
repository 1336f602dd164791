/// The one wire format between a host and its child processes (the scanner
/// and the plugin runners): length-prefixed binary frames on a stream
/// socket. Every frame starts with a fixed 16-byte header:
///
///     offset  size  field
///     0       4     magic "GRFT"
///     4       2     protocol version (`Wire.version`)
///     6       2     message kind (`Wire.Kind`)
///     8       4     request id (answers carry the id of their request)
///     12      4     payload length, at most `Wire.maximumPayload`
///
/// all little-endian, then the payload, written with `WireWriter`. A peer
/// that reads a bad magic, another version or an oversized length stops
/// talking: it does not guess where the next frame starts.
///
/// Each request's two ends sit in one file, what the host writes and reads
/// beside what the child reads and answers: `scan` in `Scanner.swift`
/// (`ScanRequest`), `load` in `RunnerLoad.swift`, the instance
/// calls in `RunnerInstance.swift`, `validate` in `RunnerValidation.swift`,
/// `action` in `RunnerActions.swift`.
enum Wire {
    static let magic: [UInt8] = Array("GRFT".utf8)
    /// Bump it whenever a frame's layout changes: host and child must be
    /// built from the same source (2: the hello says what the child applied
    /// of its sandbox; 3: `loaded` carries the description, descriptions
    /// carry permissions; 4: contracts carry stories; 5: the hello says
    /// which namespaces the child has and which user it runs as).
    static let version: UInt16 = 5
    static let headerSize = 16
    /// Far above any real answer (a plugin with 1,024 components and their
    /// debugConfigs), far below what could hurt the host.
    static let maximumPayload = 16 << 20
    /// The instance number that names "the instance the previous request
    /// created", for a render pipelined behind its create.
    static let justCreated = UInt32.max

    enum Kind: UInt16, Sendable {
        /// child → host, first frame: protocol version, ABI, architecture.
        case hello = 1
        /// host → child: describe the file whose descriptor travels with the frame.
        case scan = 2
        // 3 is not used: the scanner reports its stages on a pipe of their own.
        /// child → host: the file loaded; its `PluginDescription` follows.
        case described = 4
        /// child → host: the file was refused; its errors follow.
        case refused = 5

        // The runner (`graft-child serve`): every request gets one answer
        // with its id, `failed` (a GraftError) or the kind named beside it.
        /// host → child, with the plugin file's descriptor: map it → `loaded`
        /// (slot, and the plugin's description as mapped there).
        case load = 10
        case loaded = 11
        /// child → host: the request failed; the error follows.
        case failed = 12
        /// slot, key, version, inputs, container size → `created` (instance number).
        case create = 13
        case created = 14
        /// instance, media type → `rendered` (media type, bytes). Instance
        /// `Wire.justCreated` is the one the request before created (a render
        /// sent in the same write as its create).
        case render = 15
        case rendered = 16
        /// instance, action, data? → `answer`.
        case interact = 17
        /// A yes or no, with the instance's new warnings.
        case answer = 18
        /// instance, inputs → `answer`.
        case update = 19
        /// instance → `state` (bytes?).
        case saveState = 20
        case state = 21
        /// instance, bytes → `answer`.
        case loadState = 22
        /// instance → `answer`.
        case destroy = 23
        /// instance, container size → `answer`.
        case resize = 24
        /// slot, validator name, value, params → `validated` (valid, message?).
        case validate = 25
        case validated = 26
        /// slot, action key, params, payload? → `acted`.
        case action = 27
        case acted = 28
        /// child → host, unasked, before the answer to the call that caused it:
        /// instance, event, payload?, warnings.
        case emitted = 29

        // A tool's one job in a child of its own (`ChildJob`; the conformance
        // checker's tests): the payloads are the tool's bytes.
        /// host → child, with the plugin file's descriptor: the request.
        case job = 40
        /// child → host, unasked, before each step that may crash or hang.
        case jobStep = 41
        /// child → host: the answer; the child then ends.
        case jobDone = 42

        // The shared-memory path (`ChildRing`), on the socket right after the hello.
        /// host → child, with a memory file's descriptor: from now on, frames
        /// travel through the ring it holds; the payload is the child's spin (u32 ns).
        case ring = 50
        /// child → host, the last frame on the socket: the ring is mapped.
        case ringReady = 51
    }

    struct Header: Sendable, Equatable {
        var kind: Kind
        var id: UInt32
        var length: Int
    }

    struct Violation: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// The payload of a child's `hello`: the ABI and architecture it was
    /// built for, and what it applied of its sandbox (nil: not sandboxed).
    static func helloPayload(sandbox: ChildSandbox.Status?) -> [UInt8] {
        var writer = WireWriter()
        writer.u16(UInt16(ABIVersion.host.major))
        writer.u16(UInt16(ABIVersion.host.minor))
        writer.string(architecture)
        writer.sandboxStatus(sandbox)
        return writer.bytes
    }

    /// Why a child's `hello` says it is not this host's child, or nil; the
    /// reader is left at the sandbox's status.
    static func helloMismatch(_ reader: inout WireReader) -> String? {
        let major = try? reader.u16(), minor = try? reader.u16(), peer = try? reader.string()
        guard major.map(Int.init) == ABIVersion.host.major, minor.map(Int.init) == ABIVersion.host.minor, peer == architecture
        else {
            return "it implements ABI \(major ?? 0).\(minor ?? 0) on \(peer ?? "?"), but this host implements \(ABIVersion.host) on \(architecture)"
        }
        return nil
    }

    /// This machine's architecture, as the children and the cache name it.
    static var architecture: String {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "aarch64"
        #else
        "unknown"
        #endif
    }

    static func frame(_ kind: Kind, id: UInt32, payload: [UInt8]) -> [UInt8] {
        var writer = WireWriter()
        writer.bytes.reserveCapacity(headerSize + payload.count)
        writer.bytes += magic
        writer.u16(version)
        writer.u16(kind.rawValue)
        writer.u32(id)
        writer.u32(UInt32(payload.count))
        writer.bytes += payload
        return writer.bytes
    }

    static func header(_ bytes: ArraySlice<UInt8>) throws(Violation) -> Header {
        var reader = WireReader(bytes)
        guard try reader.raw(4).elementsEqual(magic) else { throw Violation(description: "bad magic") }
        let peerVersion = try reader.u16()
        guard peerVersion == version else {
            throw Violation(description: "protocol version \(peerVersion), expected \(version)")
        }
        let rawKind = try reader.u16()
        guard let kind = Kind(rawValue: rawKind) else { throw Violation(description: "unknown message kind \(rawKind)") }
        let id = try reader.u32()
        let length = Int(try reader.u32())
        guard length <= maximumPayload else {
            throw Violation(description: "a frame of \(length) bytes, more than the \(maximumPayload) allowed")
        }
        return Header(kind: kind, id: id, length: length)
    }
}

/// Appends little-endian fields to a byte array.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes += utf8
        }
    }

    mutating func optional(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    mutating func list<Element>(_ elements: [Element], _ write: (inout WireWriter, Element) -> Void) {
        u32(UInt32(elements.count))
        for element in elements { write(&self, element) }
    }
}

/// Reads what `WireWriter` wrote; any read past the end, or a count larger
/// than the bytes left, is a `Wire.Violation`.
struct WireReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func raw(_ count: Int) throws(Wire.Violation) -> ArraySlice<UInt8> {
        let start = bytes.startIndex + (try claim(count))
        return bytes[start..<start + count]
    }

    /// Takes the next `count` bytes, refusing a field that runs past the end;
    /// returns their offset from the first byte, for reads in place.
    private mutating func claim(_ count: Int) throws(Wire.Violation) -> Int {
        guard count >= 0, bytes.endIndex - position >= count else {
            throw Wire.Violation(description: "a field runs past the end of its frame")
        }
        defer { position += count }
        return position - bytes.startIndex
    }

    /// Little-endian, read in place (no slice per field: a registry cache
    /// holds several integers per plugin).
    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(Wire.Violation) -> T {
        let offset = try claim(MemoryLayout<T>.size)
        return T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
    }

    mutating func u8() throws(Wire.Violation) -> UInt8 { try integer(UInt8.self) }
    mutating func bool() throws(Wire.Violation) -> Bool { try u8() != 0 }
    mutating func u16() throws(Wire.Violation) -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws(Wire.Violation) -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws(Wire.Violation) -> UInt64 { try integer(UInt64.self) }
    mutating func i64() throws(Wire.Violation) -> Int64 { Int64(bitPattern: try u64()) }
    mutating func f64() throws(Wire.Violation) -> Double { Double(bitPattern: try u64()) }

    mutating func string() throws(Wire.Violation) -> String {
        let count = Int(try u32())
        let offset = try claim(count)
        // From the bytes in place: no slice (and its retain) per string.
        return bytes.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count]), as: UTF8.self) }
    }

    mutating func optional() throws(Wire.Violation) -> String? {
        try bool() ? try string() : nil
    }

    /// A count followed by that many elements; each element takes at least
    /// one byte, so a count beyond the bytes left is refused before any
    /// allocation.
    mutating func list<Element>(_ read: (inout WireReader) throws(Wire.Violation) -> Element) throws(Wire.Violation) -> [Element] {
        let count = Int(try u32())
        guard count <= bytes.endIndex - position else {
            throw Wire.Violation(description: "a list of \(count) elements in fewer bytes")
        }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try read(&self)) }
        return elements
    }
}
