import GraftFlows
import GraftHost

/// How `graft run` prints a transcript entry for a person: what happened on
/// which screen at the left margin, what followed from it indented below.
enum TranscriptText {
    static func lines(_ entry: TranscriptEntry) -> [String] {
        switch entry.kind {
        case .render(let render):
            let what = render.isPlaceholder ? "placeholder" : render.reason == .enter ? "render" : "re-render"
            return ["[\(render.screen)] \(what) \(render.instance) (\(render.component))"]
                + indented(render.rendering.text)
        case .interaction(let interaction):
            let data = interaction.data.map { " " + $0.jsonText } ?? ""
            return ["[\(interaction.screen)] interact \(interaction.instance) \(interaction.action)\(data)\(interaction.isKnown ? "" : " (unknown)")"]
        case .event(let event):
            let payload = event.payload.map { " " + $0.jsonText } ?? ""
            let origin = event.origin == .injected ? " (injected)" : ""
            let wired = event.wiredActions == 0 ? "no actions" : "\(event.wiredActions) action\(event.wiredActions == 1 ? "" : "s")"
            return ["[\(event.screen)] event \(event.instance).\(event.event)\(payload)\(origin) → \(wired)"]
        case .action(let action):
            let outcome = action.ok ? "ok" + (action.result.map { " " + $0.jsonText } ?? "") : "failed: \(action.error ?? "")"
            return ["  action \(action.name) \(action.params.jsonText) → \(outcome)"]
        case .validation(let validation):
            let params = validation.params.isEmpty ? "" : " " + GraftValue.list(validation.params.map(GraftValue.string)).jsonText
            let answer = validation.isValid ? "valid" : "invalid: \(validation.message ?? "is not valid")"
            return ["  validate \(validation.validator) \(validation.value.jsonText)\(params) → \(answer)"]
        case .warning(let warning):
            return ["  warning: \(warning.code.rawValue): \(warning.message)"]
        case .variableChange(let change):
            return ["  variable \(change.name) = \(change.newValue.jsonText) (was \(change.oldValue?.jsonText ?? "unset"))"]
        case .navigation(let navigation):
            return ["go to \(navigation.to) (from \(navigation.from))"]
        case .close(let screen):
            return ["close (on \(screen))"]
        }
    }

    /// The output indented under its header; a final newline adds no empty line.
    private static func indented(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { "    " + $0 }
    }
}
