import FoundationEssentials
import GraftDebugger
import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// Trying validators, actions and one-off renders, each recorded in the
/// action log as the debugger records them:
/// - `POST /api/validate` `{"validator": "NAME[@V]", "value": …, "params": ["…"]}`
///   → `{"validator", "valid", "message"}`;
/// - `POST /api/action` `{"action": "KEY[@V]", "params": {…}, "payload": …}`
///   → `{"action", "ok", "error", "variables", "result"}`;
/// - `POST /api/render` `{"component", "config", "interact": [{"action", "data"}],
///   "emit": [{"event", "payload"}], "html", "width", "height"}` → the
///   sandbox's result, as `graft try --json` prints it.
enum TryOutRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, parts: WorkbenchParts) {
        router.post("/api/validate") { request, _ in
            let body = try await RequestJSON.object(request)
            let name = try body.string("validator")
            let value = body["value"] ?? .null
            let params = try (body.optionalList("params") ?? []).map { item throws(WorkbenchError) -> String in
                switch item {
                case .string(let text): return text
                case .number, .bool: return item.jsonText
                default: throw WorkbenchError.invalidJSON("the body of /api/validate: \"params\" must be a list of strings.")
                }
            }
            let result = try await parts.calls.run {
                do throws(GraftError) {
                    return try parts.host.validate(name, value: value, params: params)
                } catch {
                    throw WorkbenchError(error)
                }
            }
            parts.log.record(ActionLogRecord(detail: .validation(LoggedValidation(
                validator: name, value: value, params: params, isValid: result.isValid, message: result.message))))
            var answer: [String: GraftValue] = [
                "validator": .string(result.validator), "valid": .bool(result.isValid), "plugin": .string(result.pluginID),
            ]
            if let message = result.message { answer["message"] = .string(message) }
            return HTTPReply.json(.object(answer))
        }
        router.post("/api/action") { request, _ in
            let body = try await RequestJSON.object(request)
            let key = try body.string("action")
            let params = try body.optionalObject("params") ?? [:]
            let payload = body["payload"]
            let result = try await parts.calls.run {
                do throws(GraftError) {
                    return try parts.host.invokeAction(key, params: params, payload: payload)
                } catch {
                    throw WorkbenchError(error)
                }
            }
            parts.log.record(ActionLogRecord(detail: .action(LoggedAction(
                name: key, params: .object(params), ok: result.ok, error: result.error, result: result.result,
                variablesSet: result.ok ? result.variables : [:]))))
            var answer: [String: GraftValue] = [
                "action": .string(key), "ok": .bool(result.ok), "variables": .object(result.variables),
            ]
            if let error = result.error { answer["error"] = .string(error) }
            if let value = result.result { answer["result"] = value }
            return HTTPReply.json(.object(answer))
        }
        router.post("/api/render") { request, _ in
            let sandboxRequest = try sandboxRequest(try await RequestJSON.object(request))
            let result = try await parts.calls.run {
                do throws(GraftError) {
                    return try DryRun(host: parts.host).run(sandboxRequest)
                } catch {
                    throw WorkbenchError(error)
                }
            }
            return HTTPReply.json(result.json)
        }
    }

    /// The body of `/api/render`, the fields of the debug protocol's `try`.
    static func sandboxRequest(_ body: JSONObject) throws -> DryRunRequest {
        var request: DryRunRequest
        do {
            request = DryRunRequest(component: try ComponentReference(parsing: try body.string("component")))
        } catch let error as GraftError {
            throw WorkbenchError(error)
        }
        request.inputs = try body.optionalObject("config")
        for item in try body.optionalList("interact") ?? [] {
            let step = JSONObject(item.objectValue ?? [:], context: "an interact step")
            request.steps.append(.interact(action: try step.string("action"), data: step["data"]))
        }
        for item in try body.optionalList("emit") ?? [] {
            let step = JSONObject(item.objectValue ?? [:], context: "an emit step")
            request.steps.append(.emit(event: try step.string("event"), payload: step["payload"]))
        }
        request.mediaType = try body.bool("html", default: true) ? .html : .plain
        request.containerSize = ContainerSize(width: try body.number("width", default: 0), height: try body.number("height", default: 0))
        return request
    }
}
