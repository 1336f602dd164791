/// What one conformance test came to.
package struct ConformanceResult: Sendable, Hashable {
    package enum Outcome: String, Sendable, Hashable {
        case passed, warned, failed, skipped
    }

    package var test: ConformanceTest
    package var findings: [ConformanceFinding]
    /// What the test did that a reader may want to know (a time, a growth).
    package var notes: [String]
    /// Set when the test had nothing to run on (a plugin that does not load,
    /// components that declare no interactions).
    package var skipReason: String?
    package var duration: Duration

    /// Failures fail the test; warnings too when `strict`.
    package func outcome(strict: Bool) -> Outcome {
        if findings.contains(where: { $0.severity == .failure }) { return .failed }
        if findings.contains(where: { $0.severity == .warning }) { return strict ? .failed : .warned }
        return skipReason == nil ? .passed : .skipped
    }
}
