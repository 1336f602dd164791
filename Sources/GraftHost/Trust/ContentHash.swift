import Crypto

/// A plugin file's SHA-256 in lowercase hex: what tells a rebuilt plugin from
/// an unchanged one, and what `graft.lock` pins. Streamed from the open file,
/// never read whole.
enum ContentHash {
    static func of(_ file: PluginFile) throws(GraftError) -> String {
        var hasher = SHA256()
        try file.forEachBlock { block in hasher.update(bufferPointer: block) }
        return hex(hasher.finalize())
    }

    /// A SHA-256 fed block by block, for a pass that also does other work.
    struct Running {
        private var hasher = SHA256()
        mutating func update(_ block: UnsafeRawBufferPointer) { hasher.update(bufferPointer: block) }
        func finish() -> String { ContentHash.hex(hasher.finalize()) }
    }

    static func of(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    fileprivate static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
