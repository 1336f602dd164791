import GraftHost

/// One request line, parsed. Every request is an object with `request`
/// naming it and an optional `id` the answer echoes.
enum DebugRequest: Sendable {
    case hello(version: Int)
    case plugins
    case tail(last: Int, filter: ActionLogFilter)
    case follow(last: Int, filter: ActionLogFilter)
    case unfollow
    case dryRun(DryRunRequest)

    static let names = ["hello", "plugins", "tail", "follow", "unfollow", "try"]

    /// The request's name, as the answer's `response` repeats it.
    var name: String {
        switch self {
        case .hello: "hello"
        case .plugins: "plugins"
        case .tail: "tail"
        case .follow: "follow"
        case .unfollow: "unfollow"
        case .dryRun: "try"
        }
    }

    init(json value: GraftValue) throws(DebugProtocolError) {
        let fields: JSONFields
        do {
            fields = try JSONFields(value, context: "the request")
        } catch {
            throw .badRequest(error.message)
        }
        guard let name = fields.optional("request")?.stringValue else {
            throw .badRequest("a request is an object with \"request\" naming it: one of \(Self.names.joined(separator: ", ")).")
        }
        do {
            switch name {
            case "hello":
                guard let version = try fields.optionalInteger("version") else {
                    throw GraftError(.invalidJSON, "hello needs the \"version\" of the protocol the client speaks.")
                }
                self = .hello(version: version)
            case "plugins":
                self = .plugins
            case "tail":
                self = .tail(last: try Self.count(fields, default: 20), filter: try ActionLogFilter(json: fields.optional("filter")))
            case "follow":
                self = .follow(last: try Self.count(fields, default: 0), filter: try ActionLogFilter(json: fields.optional("filter")))
            case "unfollow":
                self = .unfollow
            case "try":
                self = .dryRun(try Self.dryRunRequest(fields))
            default:
                throw DebugProtocolError(
                    "unknown_request", "unknown request \"\(name)\"; requests are \(Self.names.joined(separator: ", ")).")
            }
        } catch let error as DebugProtocolError {
            throw error
        } catch let error as GraftError {
            throw error.code == .invalidJSON ? .badRequest(error.message) : DebugProtocolError(error)
        } catch {
            throw .badRequest("\(error)")
        }
    }

    private static func count(_ fields: JSONFields, default value: Int) throws(GraftError) -> Int {
        guard let last = try fields.optionalInteger("last") else { return value }
        guard last >= 0 else { throw GraftError(.invalidJSON, "\"last\" must be 0 or more.") }
        return min(last, DebugProtocol.maximumReplay)
    }

    /// `{"request": "try", "component": "KEY[@V]", "config": {…}, "instance": "ID",
    ///   "interact": [{"action", "data"}], "emit": [{"event", "payload"}],
    ///   "html": false, "width": 0, "height": 0}`; only `component` is required.
    private static func dryRunRequest(_ fields: JSONFields) throws(GraftError) -> DryRunRequest {
        let reference = try ComponentReference(parsing: try fields.string("component"))
        var request = DryRunRequest(component: reference)
        if let config = fields.optional("config") {
            guard let inputs = config.objectValue else { throw GraftError(.invalidJSON, "\"config\" must be an object of inputs.") }
            request.inputs = inputs
        }
        request.instance = try fields.optionalString("instance")
        for item in fields.optional("interact")?.listValue ?? [] {
            let step = try JSONFields(item, context: "an interact step")
            request.steps.append(.interact(action: try step.string("action"), data: step.optional("data")))
        }
        for item in fields.optional("emit")?.listValue ?? [] {
            let step = try JSONFields(item, context: "an emit step")
            request.steps.append(.emit(event: try step.string("event"), payload: step.optional("payload")))
        }
        if fields.optional("html")?.boolValue == true { request.mediaType = .html }
        request.containerSize = ContainerSize(
            width: fields.optional("width")?.numberValue ?? 0, height: fields.optional("height")?.numberValue ?? 0)
        return request
    }
}
