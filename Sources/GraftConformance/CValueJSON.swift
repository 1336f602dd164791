import CGraft
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// A C value (graft.h's `graft_value_t`) as the JSON a WebAssembly guest
/// takes, written as it is: a string's bytes go across unchanged (only
/// quotes, backslashes and control bytes escaped), so that the hostile
/// inputs a shared library gets (bytes that are not UTF-8) reach a guest too.
enum CValueJSON {
    static func bytes(of value: UnsafePointer<graft_value_t>) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value.pointee, to: &bytes)
        return bytes
    }

    private static func append(_ value: graft_value_t, to bytes: inout [UInt8]) {
        switch Int32(value.type) {
        case Int32(GRAFT_TYPE_BOOLEAN):
            bytes += Array((value.data.boolean ? "true" : "false").utf8)
        case Int32(GRAFT_TYPE_NUMBER):
            bytes += Array(GraftValue.number(value.data.number.isFinite ? value.data.number : 0).jsonText.utf8)
        case Int32(GRAFT_TYPE_STRING):
            let string = value.data.string
            appendString(string.data.map { UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: string.length) }, to: &bytes)
        case Int32(GRAFT_TYPE_LIST):
            bytes.append(UInt8(ascii: "["))
            for index in 0..<Int(value.data.list.count) {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                if let items = value.data.list.items { append(items[index], to: &bytes) }
            }
            bytes.append(UInt8(ascii: "]"))
        case Int32(GRAFT_TYPE_OBJECT):
            bytes.append(UInt8(ascii: "{"))
            for index in 0..<Int(value.data.object.count) {
                guard let member = value.data.object.members?[index] else { continue }
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                let key = member.key.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
                key.withUnsafeBufferPointer { appendString($0, to: &bytes) }
                bytes.append(UInt8(ascii: ":"))
                append(member.value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        default:
            bytes += Array("null".utf8)
        }
    }

    private static func appendString(_ text: UnsafeBufferPointer<UInt8>?, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text ?? UnsafeBufferPointer(start: nil, count: 0) {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
