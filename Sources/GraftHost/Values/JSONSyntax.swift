/// Says where JSON text stops being valid, as a line and column a person
/// can open, and why.
package enum JSONSyntax {
    package static func describeError(in text: String) -> String {
        let bytes = Array(text.utf8)
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return "line 1, column 1: the text is empty\(bytes.isEmpty ? "" : " (only white space)")."
        }
        guard let (offset, reason) = JSONReader.diagnose(text) else { return "the text is a JSON value." }
        let (line, column) = position(ofByte: offset, in: bytes)
        return "line \(line), column \(column): \(reason)."
    }

    private static func position(ofByte offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
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
