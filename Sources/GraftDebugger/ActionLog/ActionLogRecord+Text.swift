import GraftHost
import GraftSupport

extension ActionLogRecord {
    /// The record for a terminal: one headline, then one indented line per
    /// warning. `graft debug attach … log` prints these.
    ///
    ///     09:30:00.123 #12 event  delivery.date_selected {"date":"2026-12-24"}  date_picker@2 (dev.graft.date-picker) → 3 actions
    ///     09:30:00.124 #13 action delivery.date_selected set_variable {"value":"2026-12-24","variable":"delivery_date"} → ok
    public var text: String {
        var line = "\(Timestamp.clock(from: time)) \("#\(sequence)".padded(toLength: 6)) \(kind.rawValue.padded(toLength: 11))"
        let source = [instance, event].compactMap { $0 }.joined(separator: ".")
        switch detail {
        case .event(let payload, let origin, let wiredActions):
            line += "\(source) \(payload?.jsonText ?? "(no payload)")"
            if origin == .injected { line += " (injected)" }
            line += provenance
            if let wiredActions { line += " → \(wiredActions) action\(wiredActions == 1 ? "" : "s")" }
        case .action(let action):
            line += "\(source.isEmpty ? "" : "\(source) ")\(action.name) \(action.params.jsonText)"
            if action.ok {
                line += " → ok"
                if let result = action.result { line += " \(result.jsonText)" }
            } else {
                line += " → failed: \(action.error ?? "no reason given")"
            }
            if let wall = action.wallTime {
                line += " (\(Int((wall / .microseconds(1)).rounded())) µs\(action.cpuTime.map { ", CPU \(Int(($0 / .microseconds(1)).rounded())) µs" } ?? ""))"
            }
        case .validation(let validation):
            line += "\(source.isEmpty ? "" : "\(source) ")\(validation.validator) \(validation.value.jsonText)"
            if !validation.params.isEmpty { line += " \(GraftValue.list(validation.params.map(GraftValue.string)).jsonText)" }
            line += validation.isValid ? " → valid" : " → invalid: \(validation.message ?? "")"
        case .warning:
            line += source.isEmpty ? "" : source
            line += provenance
        case .swap(let swap):
            line += swap.summary
        }
        return ([line] + warnings.map { "    ⚠ \($0.code.rawValue): \($0.message)" }).joined(separator: "\n")
    }

    /// `  date_picker@2 (dev.graft.date-picker)`, or nothing when unknown.
    private var provenance: String {
        switch (component, pluginID) {
        case (let component?, let plugin?): "  \(component) (\(plugin))"
        case (let component?, nil): "  \(component)"
        case (nil, let plugin?): "  (\(plugin))"
        case (nil, nil): ""
        }
    }
}
