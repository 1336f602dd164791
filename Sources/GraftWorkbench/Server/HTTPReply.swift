import GraftHost
import HTTPTypes
import Hummingbird
import NIOCore

/// Building answers: JSON from graft values, errors in their one form,
/// and the static assets.
enum HTTPReply {
    static func json(_ value: GraftValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: value.jsonText)))
    }

    static func error(_ error: WorkbenchError) -> Response {
        json(error.json, status: HTTPResponse.Status(code: error.status))
    }

    /// The page for a visit without the token, or with another workbench's: what happened and what to open. Plain
    /// HTML with no script or style, so the page's security policy holds; the status is the error's.
    static func tokenPage(_ error: WorkbenchError) -> Response {
        let missing = error.code == WorkbenchError.Code.tokenRequired.rawValue
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Graft Workbench: \(missing ? "token needed" : "wrong token")</title></head>
            <body><main>
            <h1>\(missing ? "This workbench needs its token" : "This is not the token of this workbench")</h1>
            <p>\(missing
                ? "The workbench only answers the address it printed when it started, which carries a token (<code>?token=…</code>)."
                : "The token this browser sent belongs to another run of the workbench: each run makes a new one.")</p>
            <p>Open the address <code>graft workbench</code> printed most recently, for example
            <code>http://127.0.0.1:PORT/?token=…</code>. It stays in this browser as a cookie afterwards.</p>
            <p><small>Error <code>\(error.code)</code></small></p>
            </main></body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: HTTPResponse.Status(code: error.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func asset(_ asset: Asset) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static func redirect(to location: String, settingCookie cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }
}

/// Reading request bodies: one JSON object, at most `limit` bytes.
enum RequestJSON {
    static let limit = 1 << 20

    static func object(_ request: Request) async throws -> JSONObject {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw WorkbenchError.requestTooLarge(request.uri.path, limit: limit)
        }
        let text = String(buffer: buffer)
        guard !text.allSatisfy(\.isWhitespace) else { return JSONObject([:], context: "the body of \(request.uri.path)") }
        let value: GraftValue
        do {
            value = try GraftValue(json: text)
        } catch {
            throw WorkbenchError.invalidJSON("the body of \(request.uri.path) is not JSON: \(error.message)")
        }
        guard let object = value.objectValue else {
            throw WorkbenchError.invalidJSON("the body of \(request.uri.path) must be a JSON object.")
        }
        return JSONObject(object, context: "the body of \(request.uri.path)")
    }
}

/// The fields of a JSON object a request sent, read with errors that name
/// the field and say what it must be.
struct JSONObject: Sendable {
    let fields: [String: GraftValue]
    let context: String

    init(_ fields: [String: GraftValue], context: String) {
        self.fields = fields
        self.context = context
    }

    subscript(key: String) -> GraftValue? {
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(WorkbenchError) -> String {
        guard let text = self[key]?.stringValue else { throw mistyped(key, "a string") }
        return text
    }

    func optionalString(_ key: String) throws(WorkbenchError) -> String? {
        guard let value = self[key] else { return nil }
        guard let text = value.stringValue else { throw mistyped(key, "a string") }
        return text
    }

    func optionalObject(_ key: String) throws(WorkbenchError) -> [String: GraftValue]? {
        guard let value = self[key] else { return nil }
        guard let object = value.objectValue else { throw mistyped(key, "an object") }
        return object
    }

    func optionalList(_ key: String) throws(WorkbenchError) -> [GraftValue]? {
        guard let value = self[key] else { return nil }
        guard let list = value.listValue else { throw mistyped(key, "a list") }
        return list
    }

    func bool(_ key: String, default fallback: Bool) throws(WorkbenchError) -> Bool {
        guard let value = self[key] else { return fallback }
        guard let flag = value.boolValue else { throw mistyped(key, "true or false") }
        return flag
    }

    func number(_ key: String, default fallback: Double) throws(WorkbenchError) -> Double {
        guard let value = self[key] else { return fallback }
        guard let number = value.numberValue, number.isFinite else { throw mistyped(key, "a number") }
        return number
    }

    private func mistyped(_ key: String, _ what: String) -> WorkbenchError {
        .invalidJSON("\(context): \"\(key)\" must be \(what).")
    }
}
