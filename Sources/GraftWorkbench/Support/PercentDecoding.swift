/// Percent-decoding for path parameters (`echo%401` is `echo@1`), without
/// Foundation: graft links FoundationEssentials only.
enum PercentDecoding {
    /// The text with every `%XX` decoded; a malformed escape stays as it is.
    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
