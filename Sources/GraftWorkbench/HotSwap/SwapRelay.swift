import FoundationEssentials
import GraftHost

/// Hot swap, seen from the page. The host's watcher reloads a rebuilt plugin
/// file; for each reload this relay tells every page
/// (`{"type": "swap", "outcome", "plugin", "path", "summary", "error"}`: a
/// refused build shows as a banner while the old build keeps serving), then
/// renders every open component session and the flow again on the build now
/// serving and pushes the renders (`{"type": "render", …, "reason":
/// "swap"}`). The pages keep their control values: the session's inputs
/// travel with the instance, and nothing reloads the page.
final class SwapRelay: Sendable {
    private let host: GraftHost
    private let hub: LiveHub
    private let sessions: SessionStore
    private let flow: FlowSession?
    private let token: Int

    init(host: GraftHost, hub: LiveHub, sessions: SessionStore, flow: FlowSession?) {
        self.host = host
        self.hub = hub
        self.sessions = sessions
        self.flow = flow
        token = host.addSwapObserver { [hub, sessions, flow] event in
            Self.relay(event, hub: hub, sessions: sessions, flow: flow)
        }
    }

    func stop() { host.removeSwapObserver(token) }

    static func message(for event: SwapEvent) -> GraftValue {
        var object: [String: GraftValue] = [
            "type": "swap", "path": .string(event.path), "summary": .string(event.summary),
            "time": .number(event.time.timeIntervalSince1970 * 1000),
        ]
        if let plugin = event.pluginID { object["plugin"] = .string(plugin) }
        if let version = event.newVersion { object["newVersion"] = .string(version) }
        if let version = event.oldVersion { object["oldVersion"] = .string(version) }
        switch event.outcome {
        case .swapped: object["outcome"] = "swapped"
        case .loaded: object["outcome"] = "loaded"
        case .unchanged:
            object["outcome"] = "unchanged"
            if event.restoresRunningBuild { object["restored"] = true }
        case .removed: object["outcome"] = "removed"
        case .failed(let error):
            object["outcome"] = "failed"
            object["error"] = error.workbenchJSON
        }
        return .object(object)
    }

    private static func relay(_ event: SwapEvent, hub: LiveHub, sessions: SessionStore, flow: FlowSession?) {
        // An unchanged reload is news only when it ends a rejection (the page drops its banner).
        if case .unchanged = event.outcome, !event.restoresRunningBuild { return }
        hub.broadcast(message(for: event))
        if case .failed = event.outcome { return }
        if case .unchanged = event.outcome { return }
        // Every session, not only the swapped plugin's: a new file may bring
        // a component a session was waiting for, a removed one take it away.
        let open = sessions.all
        Task {
            await withTaskGroup(of: Void.self) { group in
                for session in open {
                    group.addTask {
                        if let report = try? await session.follow() { hub.broadcast(report.json) }
                    }
                }
                if let flow {
                    group.addTask {
                        if let state = try? await flow.rerender() { hub.broadcast(state) }
                    }
                }
            }
        }
    }
}
