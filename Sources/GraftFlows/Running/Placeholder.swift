import GraftHost
import GraftSupport

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
            text: "<div class=\"graft-placeholder\" data-component=\"\(HTMLText.escaped(reference.description))\" data-code=\"\(reason.code.rawValue)\">\(HTMLText.escaped(text))</div>")
    }

}
