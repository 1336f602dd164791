import Foundation
import GraftFlows
import GraftHost
import Hummingbird
import NIOPosix

/// The server's routes: screens of the flow, single components, validators.
struct FlowRoutes: Sendable {
    let host: GraftHost
    let flow: FlowDocument
    /// Where flows run: a `FlowRunner` is synchronous, and waits on its plugins.
    let flows: NIOThreadPool

    func add(to router: Router<BasicRequestContext>) {
        router.get("/healthz") { _, _ in "ok" }

        // The flow's first screen, rendered for this request.
        router.get("/") { _, _ in
            try await page(events: [])
        }

        // Events (one JSON object per line: {"interact": …} or {"emit": …}), then the screen they lead to.
        router.post("/flow") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            let lines = String(buffer: body).split(whereSeparator: \.isNewline).map(String.init)
            do {
                return try await page(events: lines.map { line throws(GraftError) in try FlowEvent(json: line) })
            } catch let error as GraftError {
                return Self.reply(error, status: .badRequest)
            }
        }

        // One component, its inputs from the query (strings), with the async API: no thread waits on its plugin.
        router.get("/components/{reference}") { request, context in
            let reference = try ComponentReference(parsing: context.parameters.require("reference"))
            var inputs: [String: GraftValue] = [:]
            for (name, value) in request.uri.queryParameters { inputs["\(name)"] = .string("\(value)") }
            do {
                let instance = try await host.makeInstance(of: reference, inputs: inputs)
                defer { instance.close() }
                let rendering = try await instance.render(as: .html)
                return Self.html(Self.document(title: reference.description, body: Self.fragment(rendering)))
            } catch let error as GraftError {
                return Self.reply(error, status: error.code == .customComponentNotFound ? .notFound : .internalServerError)
            }
        }

        // A validator, as JSON.
        router.get("/validate/{name}") { request, context in
            let name = try context.parameters.require("name")
            let value = request.uri.queryParameters["value"].map { GraftValue.string("\($0)") } ?? .null
            let params = request.uri.queryParameters.getAll("param").map { "\($0)" }
            do {
                let result = try await host.validate(name, value: value, params: params)
                return Self.json(["valid": .bool(result.isValid), "message": result.message.map(GraftValue.string) ?? .null])
            } catch let error as GraftError {
                return Self.reply(error, status: error.code == .validatorNotFound ? .notFound : .internalServerError)
            }
        }
    }

    /// Runs the flow from its start through `events` on a flow thread, and renders the screen it is on.
    private func page(events: [FlowEvent]) async throws -> Response {
        let (host, flow) = (host, flow)
        let outcome: Result<(screen: String, renders: [RenderRecord]), GraftError> = try await flows.runIfActive {
            Result { () throws(GraftError) in
                let runner = FlowRunner(host: host, flow: flow, mediaType: .html)
                try runner.start()
                for event in events { try runner.send(event) }
                let screen = runner.currentScreen ?? "closed"
                // The last render of each instance on the screen it ended on.
                var latest: [String: RenderRecord] = [:]
                var order: [String] = []
                for entry in runner.transcript {
                    guard case .render(let record) = entry.kind, record.screen == screen else { continue }
                    if latest[record.instance] == nil { order.append(record.instance) }
                    latest[record.instance] = record
                }
                return (screen, order.compactMap { latest[$0] })
            }
        }
        switch outcome {
        case .success(let (screen, renders)):
            let sections = renders.map { record in
                "<section data-instance=\"\(Self.escape(record.instance))\" data-component=\"\(Self.escape(record.component.description))\">\(Self.fragment(record.rendering))</section>"
            }
            return Self.html(Self.document(title: "Screen \(screen)", body: "<main data-screen=\"\(Self.escape(screen))\">\n\(sections.joined(separator: "\n"))\n</main>"))
        case .failure(let error):
            return Self.reply(error, status: .badRequest)
        }
    }

    /// A plugin's rendering in the page: HTML as it is (the component's own
    /// markup, as a server-driven screen shows it), anything else escaped.
    static func fragment(_ rendering: Rendering) -> String {
        rendering.mediaType == .html ? rendering.text : "<pre>\(escape(rendering.text))</pre>"
    }

    static func document(title: String, body: String) -> String {
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>\(escape(title))</title></head>\n<body>\n\(body)\n</body></html>\n"
    }

    /// Its own escaping: an example uses only what a host app can call (Graft's helpers are package-internal).
    static func escape(_ text: String) -> String {
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

    static func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: [String: GraftValue], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: GraftValue.object(value).jsonText)))
    }

    static func reply(_ error: GraftError, status: HTTPResponse.Status) -> Response {
        json(["error": .string(error.code.rawValue), "message": .string(error.message)], status: status)
    }
}
