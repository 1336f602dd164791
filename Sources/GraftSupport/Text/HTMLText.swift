/// Text put into HTML by the host's own code (a placeholder's message, a page built around a render): `&`, `<`, `>`
/// and `"` as references, so that it is text in an element and in a double-quoted attribute alike.
package enum HTMLText {
    package static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
