import Crypto

/// The content hash that tells a rebuilt plugin from an unchanged one.
enum ContentHash {
    static func of(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
