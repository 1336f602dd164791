import GraftHost

extension DryRunRecord {
    /// `  emit date_selected {…}  (component, during interact select)` or
    /// `    would run set_variable {…}  (on date_selected, not executed)`,
    /// each followed by its warnings.
    var textLines: [String] {
        let headline: String
        let indent: String
        switch entry {
        case .emitted(let event, let payload, let origin, let during):
            indent = "  "
            let when = origin == .simulated ? "simulated" : "component, during \(during)"
            headline = "\(indent)emit \(event) \(payload?.jsonText ?? "(no payload)")  (\(when))"
        case .wouldRun(let action, let params, let event):
            indent = "    "
            headline = "\(indent)would run \(action) \(params.jsonText)  (on \(event), not executed)"
        }
        return [headline] + warnings.map { "\(indent)  ⚠ \($0.code.rawValue): \($0.message)" }
    }
}
