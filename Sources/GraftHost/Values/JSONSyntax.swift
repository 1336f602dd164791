import Foundation

/// Says where JSON text stops being valid, as a line and column. The
/// decoder reports only "around character N" (a UTF-8 offset), which is
/// hard to find in a file; this turns it into a position a person can open.
public enum JSONSyntax {
    public static func describeError(in text: String) -> String {
        let data = Data(text.utf8)
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "the text is not a JSON value."
        } catch {
            let reason = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                return "line 1, column 1: the text is empty\(data.isEmpty ? "" : " (only white space)")."
            }
            // The parser names no offset when the text ends early: the end is where it stopped.
            guard let offset = characterOffset(in: reason) ?? (reason.contains("end of file") ? data.count : nil) else { return reason }
            let (line, column) = position(ofByte: offset, in: data)
            return "line \(line), column \(column): \(reason.replacingOccurrences(of: " around character \(offset)", with: ""))"
        }
    }

    /// N in "… around character N." (or "… around line …" forms, which need nothing).
    private static func characterOffset(in reason: String) -> Int? {
        guard let range = reason.range(of: "around character ") else { return nil }
        return Int(reason[range.upperBound...].prefix { $0.isNumber })
    }

    private static func position(ofByte offset: Int, in data: Data) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
        }
        return (line, column)
    }
}
