import CGraft

/// A `graft_writer_t` that collects bytes and declared media types, and can
/// refuse output past `limit` bytes like a host with a size limit.
final class FakeWriter {
    let pointer: UnsafeMutablePointer<graft_writer_t>
    private(set) var bytes: [UInt8] = []
    private(set) var mediaTypes: [String] = []
    private(set) var writeCalls = 0
    private let limit: Int?

    var text: String { String(decoding: bytes, as: UTF8.self) }

    init(limit: Int? = nil) {
        self.limit = limit
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: graft_writer_t())
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.write = { writer, data, length in
            let fake = FakeWriter.from(writer)
            fake.writeCalls += 1
            if let limit = fake.limit, fake.bytes.count + length > limit { return false }
            if length > 0 {
                fake.bytes += UnsafeRawBufferPointer(start: data!, count: length)
            }
            return true
        }
        pointer.pointee.set_media_type = { writer, mediaType in
            FakeWriter.from(writer).mediaTypes.append(String(cString: mediaType!))
        }
    }

    private static func from(_ writer: UnsafePointer<graft_writer_t>?) -> FakeWriter {
        Unmanaged<FakeWriter>.fromOpaque(writer!.pointee.host_data!).takeUnretainedValue()
    }

    deinit {
        pointer.deallocate()
    }
}
