/// JSON text (RFC 8259) to a `GraftValue` in one pass over its UTF-8 bytes.
///
/// Every plugin's debugConfig is parsed when it is scanned, and flows and
/// validator params are parsed on every run: `JSONDecoder` spent more time
/// finding its generic types than reading these few bytes. This reader
/// accepts exactly what `JSONDecoder` accepts for a `GraftValue` (a
/// differential test holds it to that), a trailing comma and a leading byte
/// order mark included, and says only whether the text is
/// JSON; `diagnose` says where and why it is not (for `JSONSyntax`).
enum JSONReader {
    /// Arrays and objects nested deeper than this are refused, as JSONDecoder does.
    static let maximumDepth = 512

    /// The value `text` holds, or nil when it is not JSON.
    static func value(_ text: String) -> GraftValue? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Cursor(bytes: bytes)
            return reader.document()
        }
    }

    /// Where `text` stops being JSON (a UTF-8 offset) and why, or nil when it is JSON.
    static func diagnose(_ text: String) -> (offset: Int, reason: String)? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Cursor(bytes: bytes)
            guard reader.document() == nil else { return nil }
            if let problem = reader.problem { return (reader.problemOffset, problem) }
            if reader.atEnd { return (bytes.count, "the text ends before the value does") }
            let byte = reader.current
            let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            return (reader.index, "unexpected \(shown)")
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// Why reading stopped, when the byte at `index` alone does not say.
        var problem: String?
        var problemOffset = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The whole text as one value, with white space around it.
        mutating func document() -> GraftValue? {
            // JSONDecoder skips a UTF-8 byte order mark.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
            skipSpace()
            guard let value = value(depth: 0) else { return nil }
            skipSpace()
            // (GraftValue is nil-expressible: say which nil.)
            return index == bytes.count ? value : Optional<GraftValue>.none
        }

        private mutating func fail<T>(_ reason: String, at offset: Int) -> T? {
            problem = reason
            problemOffset = offset
            return nil
        }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8 { bytes[index] }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> GraftValue? {
            guard !atEnd else { return nil }
            switch current {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return list(depth: depth + 1)
            case UInt8(ascii: "\""): return string().map(GraftValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        private mutating func literal(_ word: StaticString, _ value: GraftValue) -> GraftValue? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return nil }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
            index += count
            return value
        }

        private mutating func object(depth: Int) -> GraftValue? {
            var members: [String: GraftValue] = [:]
            let read = elements(depth: depth, closedBy: UInt8(ascii: "}")) { cursor in
                guard !cursor.atEnd, cursor.current == UInt8(ascii: "\""), let key = cursor.string() else {
                    return false
                }
                cursor.skipSpace()
                guard !cursor.atEnd, cursor.current == UInt8(ascii: ":") else { return false }
                cursor.index += 1
                cursor.skipSpace()
                guard let member = cursor.value(depth: depth) else { return false }
                // The first of two equal keys wins, as in JSONDecoder.
                if members[key] == nil { members[key] = member }
                return true
            }
            return read ? .object(members) : nil
        }

        private mutating func list(depth: Int) -> GraftValue? {
            var values: [GraftValue] = []
            let read = elements(depth: depth, closedBy: UInt8(ascii: "]")) { cursor in
                guard let element = cursor.value(depth: depth) else { return false }
                values.append(element)
                return true
            }
            return read ? .list(values) : nil
        }

        /// The comma-separated elements of an object or a list, from its
        /// opening bracket at `index` to `close`, each read by `element`;
        /// false when the text is not JSON there.
        private mutating func elements(depth: Int, closedBy close: UInt8, _ element: (inout Cursor) -> Bool) -> Bool {
            guard depth <= JSONReader.maximumDepth else {
                _ = fail("values are nested more than \(JSONReader.maximumDepth) deep", at: index) as Bool?
                return false
            }
            index += 1  // { or [
            skipSpace()
            while true {
                // JSONDecoder allows a comma after the last element.
                if !atEnd, current == close {
                    index += 1
                    return true
                }
                guard element(&self) else { return false }
                skipSpace()
                guard !atEnd else { return false }
                switch current {
                case UInt8(ascii: ","):
                    index += 1
                    skipSpace()
                case close:
                    index += 1
                    return true
                default: return false
                }
            }
        }

        /// A string at `index` (its opening quote), unescaped.
        private mutating func string() -> String? {
            index += 1  // "
            let start = index
            // The common case: no escapes, so the bytes are the string.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { return controlCharacter() }
                index += 1
            }
            guard index < bytes.count else { return nil }
            var decoded = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: decoded, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard !atEnd else { return nil }
                    let escape = current
                    let escapeStart = index - 1
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else {
                            return fail("an invalid \\u escape in a string", at: escapeStart)
                        }
                        decoded.append(contentsOf: String(Character(scalar)).utf8)
                    default:
                        return fail("an invalid escape in a string", at: escapeStart)
                    }
                default:
                    if byte < 0x20 { return controlCharacter() }
                    decoded.append(byte)
                    index += 1
                }
            }
            return nil
        }

        /// A raw control character (below U+0020) inside a string, which JSON refuses.
        private mutating func controlCharacter() -> String? {
            fail("a control character (byte 0x\(String(current, radix: 16))) in a string; write it escaped", at: index)
        }

        /// The scalar of `\uXXXX` (its "u" already read), joining a surrogate pair.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let first = hex4() else { return nil }
            switch first {
            case 0xD800...0xDBFF:
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let second = hex4(), (0xDC00...0xDFFF).contains(second) else { return nil }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            case 0xDC00...0xDFFF:
                return nil
            default:
                return Unicode.Scalar(first)
            }
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, as a finite Double.
        private mutating func number() -> GraftValue? {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if !atEnd, current == UInt8(ascii: "-") { index += 1 }
            guard !atEnd else { return nil }
            var significant = false  // a non-zero digit before the exponent
            if current == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return nil
            } else {
                significant = true
            }
            if !atEnd, current == UInt8(ascii: ".") {
                index += 1
                let from = index
                guard digits() > 0 else { return nil }
                if !significant { significant = bytes[from..<index].contains { $0 != UInt8(ascii: "0") } }
            }
            if !atEnd, current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if !atEnd, current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return nil }
            }
            // The grammar is checked; Swift's own conversion is exact and
            // ignores the C locale (a number this short is not allocated).
            let parsed = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) ?? .nan
            // Too large, or so small it reads as zero: JSONDecoder refuses both.
            guard parsed.isFinite, parsed != 0 || !significant else {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                return fail("the number \(text) is out of range", at: start)
            }
            return .number(parsed)
        }
    }
}
