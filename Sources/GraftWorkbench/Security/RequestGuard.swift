import GraftHost
import HTTPTypes
import Hummingbird

/// The first thing every request meets, API, asset, page or WebSocket
/// upgrade alike (an unknown path too):
/// 1. the Host header must name this workbench on loopback (DNS rebinding:
///    a hostile name that resolves to 127.0.0.1 still sends its own Host);
/// 2. an Origin header, when sent, must be one of this workbench's (a page
///    elsewhere, or plugin HTML in its opaque-origin frame, sends another);
/// 3. the token must come with it (query, cookie or bearer header).
/// A refused WebSocket upgrade never becomes one: the upgrader answers a
/// bare 400 instead of this JSON. The first visit with `?token=` gets the
/// token as an HttpOnly, SameSite=
/// Strict cookie and is redirected to the bare address. Every answer,
/// refusals included, carries the security headers, and errors thrown
/// further in become `{"error": {"code", "message"}}`.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let port: BoundPort
    let token: AccessToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Requests reach the server only once it is bound, so the port is known.
        guard let address = port.address else {
            return HTTPReply.error(WorkbenchError(.starting, status: 503, "the workbench is still starting; try again."))
        }
        var response: Response
        do {
            try check(request, address: address)
            if let landing = landing(request, address: address) {
                response = landing
            } else {
                response = try await next(request, context)
            }
        } catch let error as WorkbenchError where [WorkbenchError.Code.tokenRequired.rawValue, WorkbenchError.Code.invalidToken.rawValue].contains(error.code)
            && Self.isPageVisit(request) {
            // A person at the address bar gets a page that says what to open, not JSON.
            response = HTTPReply.tokenPage(error)
        } catch let error as WorkbenchError {
            response = HTTPReply.error(error)
        } catch let error as GraftError {
            response = HTTPReply.error(WorkbenchError(error))
        } catch let error as HTTPError where error.status == .notFound {
            response = HTTPReply.error(.notFound(request.uri.path))
        } catch let error as HTTPError {
            response = HTTPReply.error(WorkbenchError(.badRequest, status: Int(error.status.code), "\(request.uri.path): \(error.body ?? error.status.reasonPhrase)."))
        } catch {
            response = HTTPReply.error(WorkbenchError(.internalError, status: 500, "\(request.uri.path) failed: \(error)."))
        }
        SecurityHeaders.apply(to: &response.headers, address: address)
        return response
    }

    /// A browser opening the page itself (not the API, the assets or the live channel).
    private static func isPageVisit(_ request: Request) -> Bool {
        request.method == .get && request.uri.path == "/" && (request.headers[.accept] ?? "").contains("text/html")
    }

    private func check(_ request: Request, address: WorkbenchAddress) throws(WorkbenchError) {
        let host = request.head.authority
        guard let host, address.hosts.contains(host.lowercased()) else {
            throw .hostNotAllowed(host, allowed: address.hosts)
        }
        if let origin = request.headers[.origin], !address.origins.contains(origin.lowercased()) {
            throw .originNotAllowed(origin, allowed: address.origins)
        }
        guard let presented = presentedToken(request, address: address) else { throw .tokenRequired(request.uri.path) }
        guard token.matches(presented) else { throw .invalidToken(request.uri.path) }
    }

    private func presentedToken(_ request: Request, address: WorkbenchAddress) -> Substring? {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            return authorization.dropFirst("Bearer ".count)
        }
        if let query = request.uri.queryParameters["token"] { return query }
        if let cookie = request.cookies[address.cookieName] { return Substring(cookie.value) }
        return nil
    }

    /// The page opened from the printed URL: keep the token in a cookie and
    /// show the address without it.
    private func landing(_ request: Request, address: WorkbenchAddress) -> Response? {
        guard request.method == .get, request.uri.path == "/", request.uri.queryParameters["token"] != nil else { return nil }
        return HTTPReply.redirect(
            to: "/", settingCookie: "\(address.cookieName)=\(token.value); Path=/; HttpOnly; SameSite=Strict")
    }
}
