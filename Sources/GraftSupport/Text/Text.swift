#if canImport(Glibc)
import Glibc
#endif

package extension StringProtocol {
    /// Without leading and trailing spaces and tabs: what Foundation's
    /// `.whitespaces` trims (Unicode space separators and tab, not newlines).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { character in
            character.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// Writes `text` to standard error whole (it is unbuffered: a message is
/// seen even if the process dies next).
package func writeToStandardError(_ text: String) {
    write(text, to: 2)
}

private func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { _ = writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
}

/// `value` with `places` digits after the point ("12.35" for 12.345, 2),
/// as `String(format: "%.2f")` writes it (C's own formatting, exact).
package func decimal(_ value: Double, places: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 352)  // the longest %f of a Double, and then some
    let written = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(max(0, min(places, 17)))f", $0) }
    guard written > 0 else { return "\(value)" }
    return String(decoding: buffer.prefix(min(Int(written), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

package extension String {
    /// Exactly `length` characters: cut, or filled with spaces on the right
    /// (as `padding(toLength:withPad:" ",startingAt:0)` does).
    func padded(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}

/// Writes `text` to standard output whole and at once, past `print`'s
/// buffer: a line streamed into a pipe is seen as it comes.
package func writeToStandardOutput(_ text: String) {
    write(text, to: 1)
}

package extension String {
    /// With NUL, the other C0 controls, DEL and the C1 controls written as
    /// `\u{1B}`-style escapes: text a plugin chose (a path it asked for, a
    /// message), safe to print on a terminal or in one log line.
    var escapingControls: String { escapingControls(keepingLines: false) }

    /// The same, with newlines and tabs kept: a plugin's multi-line render
    /// for a terminal.
    func escapingControls(keepingLines: Bool) -> String {
        let escapes = { (scalar: Unicode.Scalar) in Self.isControl(scalar) && !(keepingLines && (scalar == "\n" || scalar == "\t")) }
        guard unicodeScalars.contains(where: escapes) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            if escapes(scalar) {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}

extension String {
    /// Whether this string comes before `other` in natural order: runs of
    /// digits compare as the numbers they write (`rating2` before
    /// `rating10`), everything else byte by byte. Equal numbers written with
    /// more leading zeros come later, so the order stays total.
    package func precedesNaturally(_ other: String) -> Bool {
        let a = Array(utf8), b = Array(other.utf8)
        var i = 0, j = 0
        func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count, isDigit(a[i]) { i += 1 }
                while j < b.count, isDigit(b[j]) { j += 1 }
                let runA = a[startA..<i].drop { $0 == 48 }, runB = b[startB..<j].drop { $0 == 48 }
                if runA.count != runB.count { return runA.count < runB.count }
                if !runA.elementsEqual(runB) { return runA.lexicographicallyPrecedes(runB) }
                if i - startA != j - startB { return i - startA < j - startB }
                continue
            }
            if a[i] != b[j] { return a[i] < b[j] }
            i += 1
            j += 1
        }
        return a.count - i < b.count - j
    }
}
