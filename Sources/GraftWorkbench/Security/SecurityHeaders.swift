import HTTPTypes

/// Headers on every answer. The content security policy lets the page run
/// only its own script, connect only to itself, and be framed by nobody.
/// Plugin HTML goes into `<iframe sandbox srcdoc>` with no rights at all (an
/// opaque origin, no script, no forms): a srcdoc frame inherits this policy,
/// so its styles may be inline ('unsafe-inline' for styles only: no script
/// is ever inline) and it can load nothing from the network.
enum SecurityHeaders {
    static func policy(for address: WorkbenchAddress) -> String {
        let sockets = address.hosts.map { "ws://\($0)" }.joined(separator: " ")
        return [
            "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
            "font-src 'self'", "connect-src 'self' \(sockets)", "frame-src 'self'", "child-src 'self'",
            "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
        ].joined(separator: "; ")
    }

    static func apply(to headers: inout HTTPFields, address: WorkbenchAddress) {
        headers[.contentSecurityPolicy] = policy(for: address)
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        // The token and plugin output must not sit in a shared cache.
        headers[.cacheControl] = "no-store"
    }
}
