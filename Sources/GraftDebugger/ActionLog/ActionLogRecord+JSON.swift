import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftFlows
import GraftHost
import GraftSupport

extension ActionLogRecord {
    /// One JSON object per record, the form of the log's JSON lines and of the
    /// debug protocol: `seq`, `time` (ISO 8601, UTC, ms), `type`, the context
    /// fields that apply (`plugin`, `component`, `instance`, `screen`,
    /// `event`), `warnings`, and the kind's own fields: `payload`, `origin`,
    /// `wiredActions` for an event; `action` for an action; `validation`; `swap`.
    public var json: GraftValue {
        var object: [String: GraftValue] = [
            "seq": .number(Double(sequence)),
            "time": .string(Timestamp.string(from: time)),
            "type": .string(kind.rawValue),
            "warnings": .list(warnings.map(\.debuggerJSON)),
        ]
        if let pluginID { object["plugin"] = .string(pluginID) }
        if let component { object["component"] = .string(component.description) }
        if let instance { object["instance"] = .string(instance) }
        if let screen { object["screen"] = .string(screen) }
        if let event { object["event"] = .string(event) }
        switch detail {
        case .event(let payload, let origin, let wiredActions):
            object["payload"] = payload ?? .null
            object["origin"] = .string(origin.rawValue)
            if let wiredActions { object["wiredActions"] = .number(Double(wiredActions)) }
        case .action(let action):
            var fields: [String: GraftValue] = [
                "name": .string(action.name), "params": action.params, "ok": .bool(action.ok),
                "variablesSet": .object(action.variablesSet),
            ]
            if let error = action.error { fields["error"] = .string(error) }
            if let result = action.result { fields["result"] = result }
            // Microseconds, as the text prints them.
            if let wall = action.wallTime { fields["wallMicroseconds"] = .number((wall / .microseconds(1)).rounded()) }
            if let cpu = action.cpuTime { fields["cpuMicroseconds"] = .number((cpu / .microseconds(1)).rounded()) }
            object["action"] = .object(fields)
        case .validation(let validation):
            var fields: [String: GraftValue] = [
                "validator": .string(validation.validator), "value": validation.value,
                "params": .list(validation.params.map(GraftValue.string)), "valid": .bool(validation.isValid),
            ]
            if let message = validation.message { fields["message"] = .string(message) }
            object["validation"] = .object(fields)
        case .warning:
            break
        case .swap(let swap):
            var fields: [String: GraftValue] = [
                "path": .string(swap.path), "outcome": .string(swap.outcome), "milliseconds": .number(swap.milliseconds),
                "recreated": .list(swap.recreated.map(GraftValue.string)),
                "stateCarried": .list(swap.stateCarried.map(GraftValue.string)),
                "failed": .list(swap.failed.map(GraftValue.string)), "orphaned": .list(swap.orphaned.map(GraftValue.string)),
                "summary": .string(swap.summary),
            ]
            if let old = swap.oldVersion { fields["oldVersion"] = .string(old) }
            if let new = swap.newVersion { fields["newVersion"] = .string(new) }
            object["swap"] = .object(fields)
        }
        return .object(object)
    }

    /// Reads a record back from `json`, as a debug client receives it.
    /// Throws `invalid_json` naming the field that is missing or mistyped.
    public init(json: GraftValue) throws(GraftError) {
        let fields = try JSONFields(json, context: "the log record")
        let typeText = try fields.string("type")
        guard let kind = Kind(rawValue: typeText) else {
            throw GraftError(.invalidJSON, "the log record has type '\(typeText)'; known types: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let detail: Detail
        switch kind {
        case .event:
            let originText = try fields.optionalString("origin") ?? EventRecord.Origin.component.rawValue
            detail = .event(
                payload: fields.optional("payload"), origin: EventRecord.Origin(rawValue: originText) ?? .component,
                wiredActions: try fields.optionalInteger("wiredActions"))
        case .action:
            let action = try JSONFields(.object(try fields.object("action")), context: "the record's action")
            detail = .action(LoggedAction(
                name: try action.string("name"), params: action.optional("params") ?? .object([:]), ok: try action.bool("ok"),
                error: try action.optionalString("error"), result: action.optional("result"),
                variablesSet: try action.object("variablesSet"),
                wallTime: try action.optionalInteger("wallMicroseconds").map { .microseconds($0) },
                cpuTime: try action.optionalInteger("cpuMicroseconds").map { .microseconds($0) }))
        case .validation:
            let validation = try JSONFields(.object(try fields.object("validation")), context: "the record's validation")
            detail = .validation(LoggedValidation(
                validator: try validation.string("validator"), value: validation.optional("value") ?? .null,
                params: try validation.strings("params"), isValid: try validation.bool("valid"),
                message: try validation.optionalString("message")))
        case .warning:
            detail = .warning
        case .swap:
            let swap = try JSONFields(.object(try fields.object("swap")), context: "the record's swap")
            detail = .swap(LoggedSwap(
                path: try swap.string("path"), outcome: try swap.string("outcome"),
                oldVersion: try swap.optionalString("oldVersion"), newVersion: try swap.optionalString("newVersion"),
                milliseconds: swap.optional("milliseconds")?.numberValue ?? 0, recreated: try swap.strings("recreated"),
                stateCarried: try swap.strings("stateCarried"), failed: try swap.strings("failed"),
                orphaned: try swap.strings("orphaned"), summary: try swap.optionalString("summary") ?? ""))
        }
        var component: ComponentReference?
        if let text = try fields.optionalString("component") { component = try ComponentReference(parsing: text) }
        self.init(
            time: try fields.optionalString("time").flatMap(Timestamp.date(from:)) ?? Date(timeIntervalSince1970: 0),
            pluginID: try fields.optionalString("plugin"), component: component, instance: try fields.optionalString("instance"),
            screen: try fields.optionalString("screen"), event: try fields.optionalString("event"),
            warnings: try fields.warnings("warnings"), detail: detail)
        sequence = UInt64(max(0, try fields.optionalInteger("seq") ?? 0))
    }
}
