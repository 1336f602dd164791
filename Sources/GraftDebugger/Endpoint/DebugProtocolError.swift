import GraftHost

/// A protocol-level error, sent as
/// `{"response": "error", "error": {"code", "message"}}`. Codes are the
/// protocol's own (`handshake_required`, `unknown_request`, …) or, for a
/// request that failed in the host, the `GraftError` code.
struct DebugProtocolError: Error, Sendable {
    var code: String
    var message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: GraftError) {
        self.init(error.code.rawValue, error.message)
    }

    static func badRequest(_ message: String) -> DebugProtocolError { DebugProtocolError("bad_request", message) }

    var json: GraftValue {
        .object(["code": .string(code), "message": .string(message)])
    }
}
