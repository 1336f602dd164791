import GraftHost

/// Everything `graft check --conformance` found for one plugin file.
package struct ConformanceReport: Sendable {
    package var path: String
    /// Whether warnings count as failures.
    package var strict: Bool
    /// One result per test run, in `ConformanceTest` order.
    package var results: [ConformanceResult]

    package func count(_ outcome: ConformanceResult.Outcome) -> Int {
        results.filter { $0.outcome(strict: strict) == outcome }.count
    }

    /// True when no test failed (at this strictness).
    package var passed: Bool { count(.failed) == 0 }

    package var json: GraftValue {
        .object([
            "path": .string(path),
            "strict": .bool(strict),
            "ok": .bool(passed),
            "summary": .object([
                "passed": .number(Double(count(.passed))), "warned": .number(Double(count(.warned))),
                "failed": .number(Double(count(.failed))), "skipped": .number(Double(count(.skipped))),
            ]),
            "tests": .list(results.map { result in
                var object: [String: GraftValue] = [
                    "name": .string(result.test.name),
                    "outcome": .string(result.outcome(strict: strict).rawValue),
                    "milliseconds": .number((Double(result.duration.components.attoseconds) / 1e15 + Double(result.duration.components.seconds) * 1000).rounded()),
                    "findings": .list(result.findings.map { finding in
                        var fields: [String: GraftValue] = [
                            "severity": .string(finding.severity.rawValue), "key": .string(finding.key),
                            "expected": .string(finding.expected), "actual": .string(finding.actual),
                        ]
                        if let code = finding.code { fields["code"] = .string(code.rawValue) }
                        return .object(fields)
                    }),
                    "notes": .list(result.notes.map { .string($0) }),
                ]
                if let reason = result.skipReason { object["skipped"] = .string(reason) }
                return .object(object)
            }),
        ])
    }
}
