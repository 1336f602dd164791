import GraftHost

/// How a conformance child's answers travel (`Wire.Kind.conformStep`,
/// `.conformed`), in the wire format every Graft child speaks.
struct ConformanceVerdict: Sendable {
    var findings: [ConformanceFinding] = []
    var notes: [String] = []
    var skipReason: String?
}

extension WireWriter {
    mutating func verdict(_ verdict: ConformanceVerdict) {
        list(verdict.findings) { writer, finding in
            writer.u8(finding.severity == .failure ? 1 : 2)
            writer.string(finding.key)
            writer.string(finding.expected)
            writer.string(finding.actual)
            writer.optional(finding.code?.rawValue)
        }
        list(verdict.notes) { $0.string($1) }
        optional(verdict.skipReason)
    }
}

extension WireReader {
    mutating func verdict() throws(Wire.Violation) -> ConformanceVerdict {
        let findings = try list { (reader) throws(Wire.Violation) -> ConformanceFinding in
            let severity: ConformanceFinding.Severity = try reader.u8() == 1 ? .failure : .warning
            let key = try reader.string(), expected = try reader.string(), actual = try reader.string()
            let code = try reader.optional().flatMap(GraftError.Code.init(rawValue:))
            return ConformanceFinding(severity, key: key, expected: expected, actual: actual, code: code)
        }
        let notes = try list { (reader) throws(Wire.Violation) in try reader.string() }
        return ConformanceVerdict(findings: findings, notes: notes, skipReason: try optional())
    }
}
