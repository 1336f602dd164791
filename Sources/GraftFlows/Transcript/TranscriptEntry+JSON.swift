import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import GraftSupport

extension TranscriptEntry {
    /// The stable JSON form: an object with a `type` (`render`, `interaction`,
    /// `event`, `action`, `validation`, `warning`, `variable_change`,
    /// `navigation`, `close`) and that kind's fields. `time` (ISO 8601, UTC,
    /// milliseconds) is included only when asked, so transcripts compare
    /// equal across runs.
    public func json(includingTime: Bool = false) -> GraftValue {
        var object = kind.jsonFields
        if includingTime { object["time"] = .string(Self.timestamp(time)) }
        return .object(object)
    }

    static func timestamp(_ date: Date) -> String { Timestamp.string(from: date) }
}

extension TranscriptEntry.Kind {
    var jsonFields: [String: GraftValue] {
        switch self {
        case .render(let render):
            return [
                "type": "render", "screen": .string(render.screen), "instance": .string(render.instance),
                "component": .string(render.component.description), "reason": .string(render.reason.rawValue),
                "mediaType": .string(render.rendering.mediaType.rawValue), "output": .string(render.rendering.text),
                "placeholder": .bool(render.isPlaceholder),
            ]
        case .interaction(let interaction):
            return [
                "type": "interaction", "screen": .string(interaction.screen), "instance": .string(interaction.instance),
                "action": .string(interaction.action), "data": interaction.data ?? .null, "known": .bool(interaction.isKnown),
            ]
        case .event(let event):
            return [
                "type": "event", "screen": .string(event.screen), "instance": .string(event.instance),
                "event": .string(event.event), "payload": event.payload ?? .null, "origin": .string(event.origin.rawValue),
                "wiredActions": .number(Double(event.wiredActions)),
            ]
        case .action(let action):
            var fields: [String: GraftValue] = [
                "type": "action", "instance": .string(action.instance), "event": .string(action.event),
                "name": .string(action.name), "params": action.params, "ok": .bool(action.ok),
                "variablesSet": .object(action.variablesSet),
            ]
            if let error = action.error { fields["error"] = .string(error) }
            if let result = action.result { fields["result"] = result }
            return fields
        case .validation(let validation):
            var fields: [String: GraftValue] = [
                "type": "validation", "validator": .string(validation.validator), "value": validation.value,
                "params": .list(validation.params.map(GraftValue.string)), "valid": .bool(validation.isValid),
            ]
            if let message = validation.message { fields["message"] = .string(message) }
            return fields
        case .warning(let warning):
            guard case .object(var fields) = warning.json else { return [:] }
            fields["type"] = "warning"
            return fields
        case .variableChange(let change):
            var fields: [String: GraftValue] = ["type": "variable_change", "name": .string(change.name), "new": change.newValue]
            if let old = change.oldValue { fields["old"] = old }
            return fields
        case .navigation(let navigation):
            return ["type": "navigation", "from": .string(navigation.from), "to": .string(navigation.to)]
        case .close(let screen):
            return ["type": "close", "screen": .string(screen)]
        }
    }
}
