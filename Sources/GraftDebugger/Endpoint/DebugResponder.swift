import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// Answers the requests that have one answer (everything but `follow`),
/// from the host, its log and its dry run. Stateless; shared by every client.
struct DebugResponder: Sendable {
    let host: GraftHost
    let log: ActionLog
    let dryRun: DryRun

    func hello(version: Int) throws(DebugProtocolError) -> [String: GraftValue] {
        guard version == DebugProtocol.version else {
            throw DebugProtocolError(
                "unsupported_version",
                "this host speaks \(DebugProtocol.name) version \(DebugProtocol.version); the client asked for \(version).")
        }
        return [
            "protocol": .string(DebugProtocol.name), "version": .number(Double(DebugProtocol.version)),
            "host": .string(GraftHost.version), "pid": .number(Double(ProcessInfo.processInfo.processIdentifier)),
            "logCapacity": .number(Double(log.capacity)),
            "flowInstances": .list((dryRun.flow?.instanceIDs ?? []).map(GraftValue.string)),
        ]
    }

    func plugins() -> [String: GraftValue] {
        ["report": PluginReport(host: host).json]
    }

    func tail(last: Int, filter: ActionLogFilter) -> [String: GraftValue] {
        [
            "records": .list(log.records(matching: filter, last: last).map(\.json)),
            "lastSequence": .number(Double(log.lastSequence)),
        ]
    }

    func dryRun(_ request: DryRunRequest) throws(DebugProtocolError) -> [String: GraftValue] {
        do {
            return ["result": try dryRun.run(request).json]
        } catch {
            throw DebugProtocolError(error)
        }
    }
}
