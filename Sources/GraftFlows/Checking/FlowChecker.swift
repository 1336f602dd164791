import GraftHost

/// Compares a flow with what a host's plugins register and reports every
/// mismatch at once:
///
/// - each editor definition against the registration of the same key +
///   version: missing component or version, input keys and types, events,
///   payload fields and types;
/// - each custom action definition against the registered action and its params;
/// - each instance: its component resolves, its inputs are defined and bound
///   to values of the declared type, the variables and payload fields its
///   bindings and actions use exist, the validators it calls are registered;
/// - the flow graph: every screen is reachable from the first.
///
///     let report = FlowChecker(host: host).check(flow)
///     for finding in report.findings { print(finding.path, finding.code, finding.message) }
public struct FlowChecker: Sendable {
    public let host: GraftHost

    public init(host: GraftHost) {
        self.host = host
    }

    public func check(_ flow: FlowDocument) -> CheckReport {
        var run = CheckRun(flow: flow, registry: RegistryView(host: host))
        run.checkDefinitions()
        run.checkActionDefinitions()
        run.checkScreens()
        run.checkReachability()
        return CheckReport(findings: run.findings)
    }
}
