import GraftHost

/// What the workbench answers a refused or failed request with: a stable
/// snake_case code, the HTTP status, and a sentence naming the thing. The
/// body is `{"error": {"code", "message"}}`, the form `graft --json` prints.
///
/// Codes are the workbench's own (`Code`: `token_required`, `host_not_allowed`,
/// …) or, for a request that failed in the host, the `GraftError` code.
public struct WorkbenchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The workbench's own codes, each in the Errors article's table of them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case tokenRequired = "token_required"
        case invalidToken = "invalid_token"
        case hostNotAllowed = "host_not_allowed"
        case originNotAllowed = "origin_not_allowed"
        case notFound = "not_found"
        case badRequest = "bad_request"
        case requestTooLarge = "request_too_large"
        case internalError = "internal_error"
        case portUnavailable = "port_unavailable"
        case starting = "starting"
        case noFlow = "no_flow"
        case notAttached = "not_attached"
        case sessionNotFound = "session_not_found"
        case axeUnavailable = "axe_unavailable"
    }

    /// The workbench's `Code`, or the host's `GraftError.Code`, as written in JSON.
    public var code: String
    public var status: Int
    public var message: String

    public init(_ code: Code, status: Int, _ message: String) {
        self.init(rawCode: code.rawValue, status: status, message)
    }

    /// A host error, with the status that says whose fault it is: the
    /// request's (400, 404) or the plugin's (502).
    public init(_ error: GraftError) {
        self.init(rawCode: error.code.rawValue, status: Self.status(for: error.code), error.message)
    }

    private init(rawCode: String, status: Int, _ message: String) {
        self.code = rawCode
        self.status = status
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public var json: GraftValue {
        .object(["error": .object(["code": .string(code), "message": .string(message)])])
    }

    static func status(for code: GraftError.Code) -> Int {
        switch code {
        case .customComponentNotFound, .componentVersionMismatch, .validatorNotFound, .actionNotFound, .unknownInstance:
            404
        case .invalidJSON, .invalidReference, .invalidParam, .invalidConfig, .unknownInteraction, .interactionRefused, .invalidFlow, .invalidStory:
            400
        case .pluginCrashed, .pluginTimeout, .pluginMemoryLimit, .pluginRestarted, .renderFailed, .instanceCreateFailed,
            .outputTooLarge, .actionFailed, .instanceClosed:
            502
        case .endpointUnavailable:
            503
        default:
            500
        }
    }

    // MARK: The workbench's own codes (each is in Errors.md's table)

    static func tokenRequired(_ path: String) -> WorkbenchError {
        WorkbenchError(
            .tokenRequired, status: 401,
            "\(path) needs the workbench's token: open the URL `graft workbench` printed (it carries ?token=…), or send Authorization: Bearer TOKEN.")
    }

    static func invalidToken(_ path: String) -> WorkbenchError {
        WorkbenchError(
            .invalidToken, status: 403,
            "the token sent for \(path) is not this workbench's: open the URL `graft workbench` printed most recently.")
    }

    static func hostNotAllowed(_ host: String?, allowed: [String]) -> WorkbenchError {
        WorkbenchError(
            .hostNotAllowed, status: 403,
            "the Host header \(host.map { "'\($0)'" } ?? "(missing)") is not this workbench's address (\(allowed.joined(separator: " or "))); refused, against DNS rebinding.")
    }

    static func originNotAllowed(_ origin: String, allowed: [String]) -> WorkbenchError {
        WorkbenchError(
            .originNotAllowed, status: 403,
            "requests from the origin '\(origin)' are refused: only pages of this workbench (\(allowed.joined(separator: " or "))) may call it.")
    }

    static func notFound(_ path: String) -> WorkbenchError {
        WorkbenchError(.notFound, status: 404, "\(path) is not a page or API of the workbench.")
    }

    static func requestTooLarge(_ path: String, limit: Int) -> WorkbenchError {
        WorkbenchError(.requestTooLarge, status: 413, "the body sent to \(path) is larger than \(limit >> 10) KiB.")
    }

    static func sessionNotFound(_ id: String) -> WorkbenchError {
        WorkbenchError(
            .sessionNotFound, status: 404,
            "component session '\(id)' is not open (closed, or evicted after \(SessionStore.capacity) newer ones): open the component again.")
    }

    static func axeUnavailable(_ why: String) -> WorkbenchError {
        WorkbenchError(.axeUnavailable, status: 404, "the accessibility check needs axe-core: \(why) Scripts/prerequisites.sh --browser installs it.")
    }

    static let noFlow = WorkbenchError(
        .noFlow, status: 404, "this workbench runs no flow: start it with --flow FLOW.json.")

    static let notAttached = WorkbenchError(
        .notAttached, status: 404, "this workbench is attached to no host: start it with --attach SOCKET.")

    static func invalidJSON(_ what: String) -> WorkbenchError {
        WorkbenchError(rawCode: GraftError.Code.invalidJSON.rawValue, status: 400, what)
    }
}
