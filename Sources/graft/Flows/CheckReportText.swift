import GraftFlows
import GraftHost

/// How `graft check --flow` prints a report for a person.
enum CheckReportText {
    static func lines(_ report: CheckReport, flowPath: String, flow: FlowDocument) -> [String] {
        guard !report.isClean else {
            return ["\(flowPath): ok — \(count(flow.components.count, "component definition")), \(count(flow.actions.count, "action definition")) and \(count(flow.screens.count, "screen")) agree with the plugins"]
        }
        var lines = ["\(flowPath): \(count(report.findings.count, "problem"))"]
        for finding in report.findings {
            let detail = finding.detail.map { " (\($0.rawValue))" } ?? ""
            lines.append("  \(finding.path): \(finding.code.rawValue)\(detail)")
            lines.append("    \(finding.message)")
            lines.append("    editor: \(finding.editor ?? "—")   plugin: \(finding.plugin ?? "—")")
        }
        return lines
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
