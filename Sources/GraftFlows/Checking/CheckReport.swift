import GraftHost

/// Everything `FlowChecker` found, in document order.
public struct CheckReport: Sendable, Hashable {
    public var findings: [CheckFinding]

    init(findings: [CheckFinding]) {
        self.findings = findings
    }

    /// True when the flow and the plugins agree and the flow is well wired.
    public var isClean: Bool { findings.isEmpty }

    /// `{"ok": Bool, "findings": [...]}`.
    public var json: GraftValue {
        .object(["ok": .bool(isClean), "findings": .list(findings.map(\.json))])
    }
}
