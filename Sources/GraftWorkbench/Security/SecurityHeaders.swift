import HTTPTypes

/// Headers on every answer. The content security policy lets the page run
/// only its own script, connect only to itself, and be framed by nobody.
/// Plugin HTML goes into `<iframe sandbox srcdoc>` with no rights at all (an
/// opaque origin, no script, no forms): a srcdoc frame inherits this policy,
/// so its styles may be inline ('unsafe-inline' for styles only: no script
/// is ever inline) and it can load nothing from the network. The page itself
/// (`/`) also allows scripts carrying its answer's nonce: only the
/// Accessibility section's frame carries one (axe-core, in a frame with no
/// origin, whose own policy runs nothing else); plugin HTML never learns it.
enum SecurityHeaders {
    /// Set by a route on its answer, taken off it here: the script nonce its page carries.
    static let scriptNonce = HTTPField.Name("X-Graft-Script-Nonce")!

    static func policy(for address: WorkbenchAddress, scriptNonce: String? = nil) -> String {
        let sockets = address.hosts.map { "ws://\($0)" }.joined(separator: " ")
        return [
            "default-src 'none'", "script-src 'self'" + (scriptNonce.map { " 'nonce-\($0)'" } ?? ""), "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
            "font-src 'self'", "connect-src 'self' \(sockets)", "frame-src 'self'", "child-src 'self'",
            "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
        ].joined(separator: "; ")
    }

    static func apply(to headers: inout HTTPFields, address: WorkbenchAddress) {
        let nonce = headers[scriptNonce]
        headers[scriptNonce] = nil
        headers[.contentSecurityPolicy] = policy(for: address, scriptNonce: nonce)
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        // The token and plugin output must not sit in a shared cache.
        headers[.cacheControl] = "no-store"
    }
}
