import CGraft
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Converts flow values and param text to native argument types. Text is
/// trimmed of spaces before it is read as a number or a boolean.
enum NativeCoercion {
    static func text(_ value: GraftValue) -> String? {
        switch value {
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): b ? "true" : "false"
        default: nil
        }
    }

    static func integer(_ value: GraftValue) -> Int64? {
        switch value {
        case .number(let n): n == n.rounded() ? Int64(exactly: n) : nil
        case .string(let s): Int64(s.trimmingSpaces)
        default: nil
        }
    }

    static func double(_ value: GraftValue) -> Double? {
        switch value {
        case .number(let n): n
        case .string(let s): Double(s.trimmingSpaces)
        default: nil
        }
    }

    static func bool(_ value: GraftValue) -> Bool? {
        switch value {
        case .bool(let b): b
        case .string(let s):
            switch s.trimmingSpaces.lowercased() {
            case "true", "1", "yes": true
            case "false", "0", "no": false
            default: nil
            }
        default: nil
        }
    }
}

extension String {
    /// Whether the UTF-8 holds `byte`: memchr on contiguous storage.
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        } ?? utf8.contains(byte)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
