/// One file the page loads, built into the binary: the workbench works
/// offline, with no CDN and no npm step.
struct Asset: Sendable {
    let contentType: String
    let bytes: [UInt8]
}

/// The page and its assets, by name under `/assets/`. They are files in
/// `Resources/` (HTML, CSS, SVG and the parts of `app.js`, read by the
/// browser tests as what they are) that SwiftPM embeds in the code
/// (`.embedInCode`): nothing is read from the file system at run time, so no
/// path can reach outside the app.
enum Assets {
    static let page = Asset(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)
    /// `app.js`: its parts in order; each defines what the later ones use,
    /// and `start.js` runs the page.
    static let script = Asset(
        contentType: "text/javascript; charset=utf-8",
        bytes: Array(
            [
                PackageResources.core_js, PackageResources.layout_js, PackageResources.plugins_js, PackageResources.sidebar_js, PackageResources.fields_js, PackageResources.accessibility_js, PackageResources.component_js,
                PackageResources.actions_js, PackageResources.tryout_js, PackageResources.flow_js,
                PackageResources.attach_js, PackageResources.start_js,
            ].joined()))
    static let style = Asset(contentType: "text/css; charset=utf-8", bytes: PackageResources.app_css)
    static let icon = Asset(contentType: "image/svg+xml", bytes: PackageResources.icon_svg)

    static func named(_ name: String) -> Asset? {
        switch name {
        case "app.js": script
        case "app.css": style
        case "icon.svg": icon
        default: nil
        }
    }
}
