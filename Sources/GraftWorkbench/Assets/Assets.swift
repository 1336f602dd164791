/// One file the page loads, built into the binary: the workbench works
/// offline, with no CDN and no npm step.
struct Asset: Sendable {
    let contentType: String
    let bytes: [UInt8]

    init(contentType: String, text: String) {
        self.contentType = contentType
        bytes = Array(text.utf8)
    }
}

/// The page and its assets, by name under `/assets/`. Nothing here is read
/// from the file system, so no path can reach outside the app.
enum Assets {
    static let page = Asset(contentType: "text/html; charset=utf-8", text: IndexPage.html)
    static let script = Asset(
        contentType: "text/javascript; charset=utf-8",
        text: [
            ScriptCore.source, ScriptPlugins.source, ScriptComponent.source, ScriptActionsPanel.source, ScriptTryOut.source,
            ScriptFlow.source, ScriptAttach.source, ScriptStart.source,
        ].joined(separator: "\n"))
    static let style = Asset(contentType: "text/css; charset=utf-8", text: Stylesheet.css)
    static let icon = Asset(contentType: "image/svg+xml", text: Icon.svg)

    static func named(_ name: String) -> Asset? {
        switch name {
        case "app.js": script
        case "app.css": style
        case "icon.svg": icon
        default: nil
        }
    }
}
