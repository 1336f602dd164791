import CGraft

/// Writes Swift text through a host-provided `graft_writer_t`.
enum CWriter {
    /// Writes `text` as UTF-8 in one call. Returns false if the host refused it.
    static func write(_ text: String, to writer: UnsafePointer<graft_writer_t>) -> Bool {
        guard let write = writer.pointee.write else { return false }
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                write(writer, chars.baseAddress, chars.count)
            }
        }
    }

    /// Declares the media type, if the host offers `set_media_type`.
    static func setMediaType(_ mediaType: MediaType, on writer: UnsafePointer<graft_writer_t>) {
        writer.pointee.set_media_type?(writer, mediaType.rawValue)
    }
}
