import GraftCommandLine
import GraftConformance
import GraftHost

/// How `graft check --conformance` prints: one line per test, then each
/// finding under it, then a count.
enum ConformanceReportText {
    static func lines(_ report: ConformanceReport) -> [String] {
        var lines = ["\(report.path): \(report.results.count) conformance test\(report.results.count == 1 ? "" : "s")\(report.strict ? ", strict (warnings fail)" : "")"]
        for result in report.results {
            let outcome = result.outcome(strict: report.strict)
            var line = "  \(label(outcome))  \(result.test.name)"
            if let reason = result.skipReason, outcome == .skipped { line += " — \(reason)" }
            lines.append(line)
            for finding in result.findings {
                let tag = finding.severity == .warning ? "warning: " : ""
                lines.append("        \(tag)\(finding.sentence)\(finding.code.map { " (\($0.rawValue))" } ?? "")")
            }
        }
        let counts = [ConformanceResult.Outcome.passed, .warned, .failed, .skipped].compactMap { outcome -> String? in
            let count = report.count(outcome)
            return count == 0 ? nil : "\(count) \(outcome.rawValue)"
        }
        lines.append(counts.joined(separator: ", "))
        return lines
    }

    private static func label(_ outcome: ConformanceResult.Outcome) -> String {
        switch outcome {
        case .passed: "PASS"
        case .warned: "WARN"
        case .failed: "FAIL"
        case .skipped: "SKIP"
        }
    }

    static func listTests(json: Bool) {
        if json {
            Output.json(.object(["tests": .list(ConformanceTest.allCases.map { test in
                .object(["name": .string(test.name), "summary": .string(test.summary)])
            })]))
            return
        }
        for test in ConformanceTest.allCases {
            Output.line(test.name)
            Output.line("    \(test.summary)")
        }
    }
}
