import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// Answers the requests that have one answer (everything but `follow`),
/// from the host, its log and its sandbox. Stateless; shared by every client.
struct DebugResponder: Sendable {
    let host: GraftHost
    let log: ActionLog
    let sandbox: Sandbox

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
            "flowInstances": .list((sandbox.flow?.instanceIDs ?? []).map(GraftValue.string)),
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

    func sandbox(_ request: SandboxRequest) throws(DebugProtocolError) -> [String: GraftValue] {
        do {
            return ["result": try sandbox.run(request).json]
        } catch {
            throw DebugProtocolError(error)
        }
    }
}
