import GraftHost

/// What stands on a screen in place of a component that could not be
/// created or rendered (missing, or its isolated plugin crashed or hung), so
/// the rest of the screen still renders and the gap is visible.
enum Placeholder {
    static func rendering(for reference: ComponentReference, reason: GraftError, as mediaType: MediaType) -> Rendering {
        let missing = reason.code == .customComponentNotFound || reason.code == .componentVersionMismatch
        let text = "\(missing ? "missing" : "failed") component \(reference) (\(reason.code.rawValue)): \(reason.message)"
        guard mediaType == .html else { return Rendering(mediaType: .plain, text: "[\(text)]") }
        return Rendering(
            mediaType: .html,
            text: "<div class=\"graft-placeholder\" data-component=\"\(escape(reference.description))\" data-code=\"\(reason.code.rawValue)\">\(escape(text))</div>")
    }

    private static func escape(_ text: String) -> String {
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
