import GraftHost

/// One thing a conformance test found: what it exercised (`key`), what
/// graft.h or the test expected and what happened.
package struct ConformanceFinding: Sendable, Hashable, Codable {
    package enum Severity: String, Sendable, Hashable, Codable {
        /// Breaks graft.h, or takes the test's process down: the test fails.
        case failure
        /// Legal but likely wrong; fails the test only with `--strict`.
        case warning
    }

    package var severity: Severity
    /// The component (`card@1`), validator (`validator nonempty@1`), action
    /// (`action remember@1`) or plugin part (`entry`, `image`) concerned.
    package var key: String
    package var expected: String
    package var actual: String
    /// `plugin_crashed` or `plugin_timeout` when the test's process died or hung.
    package var code: GraftError.Code?

    package init(_ severity: Severity, key: String, expected: String, actual: String, code: GraftError.Code? = nil) {
        self.severity = severity
        self.key = key
        self.expected = expected
        self.actual = actual
        self.code = code
    }

    /// `card@1: expected …; got …`
    package var sentence: String { "\(key): expected \(expected); got \(actual)" }
}
