/// Media types as graft.h compares them: type and subtype, case-insensitive,
/// parameters after ';' ignored.
enum MediaTypeSyntax {
    /// `type/subtype` in lower case, or nil when `text` is not a media type.
    static func essence(of text: String) -> String? {
        let essence = trim(text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0], " \t").lowercased()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isTokenCharacter) }) else { return nil }
        return essence
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$&^_.+-".unicodeScalars.contains(scalar))
    }

    /// Text that starts with a tag and closes one.
    static func looksLikeHTML(_ bytes: [UInt8]) -> Bool {
        let text = trim(String(decoding: bytes.prefix(4096), as: UTF8.self)[...], " \t\r\n")
        return text.hasPrefix("<") && (text.contains("</") || text.contains("/>"))
    }

    /// `text` without leading and trailing characters of `set`.
    private static func trim(_ text: Substring, _ set: String) -> String {
        let drop = Set(set)
        return String(text.drop(while: { drop.contains($0) }).reversed().drop(while: { drop.contains($0) }).reversed())
    }
}
