import GraftDebugger
import GraftHost

/// The component sessions pages have open, by id. Bounded: past `capacity`
/// the oldest is closed (a page left open in a forgotten tab should not
/// keep plugin instances alive for ever).
final class SessionStore: Sendable {
    static let capacity = 32

    private let host: GraftHost
    private let log: ActionLog
    private let state = Locked(State())

    private struct State: Sendable {
        var sessions: [String: ComponentSession] = [:]
        var order: [String] = []
        var next = 0
    }

    init(host: GraftHost, log: ActionLog) {
        self.host = host
        self.log = log
    }

    func open(_ reference: ComponentReference, mediaType: MediaType, size: ContainerSize) throws(GraftError) -> ComponentSession {
        let id = state.withLock { state -> String in
            state.next += 1
            return "\(state.next)"
        }
        let session = try ComponentSession(id: id, reference: reference, host: host, log: log, mediaType: mediaType, size: size)
        let evicted: [ComponentSession] = state.withLock { state in
            state.sessions[id] = session
            state.order.append(id)
            var evicted: [ComponentSession] = []
            while state.order.count > Self.capacity {
                if let old = state.sessions.removeValue(forKey: state.order.removeFirst()) { evicted.append(old) }
            }
            return evicted
        }
        for old in evicted { old.close() }
        return session
    }

    func session(_ id: String) throws(WorkbenchError) -> ComponentSession {
        guard let session = state.withLock({ $0.sessions[id] }) else { throw .sessionNotFound(id) }
        return session
    }

    func close(_ id: String) {
        let session: ComponentSession? = state.withLock { state in
            state.order.removeAll { $0 == id }
            return state.sessions.removeValue(forKey: id)
        }
        session?.close()
    }

    var all: [ComponentSession] { state.withLock { state in state.order.compactMap { state.sessions[$0] } } }

    func closeAll() {
        for session in state.withLock({ state in defer { state = State(next: state.next) }; return Array(state.sessions.values) }) {
            session.close()
        }
    }
}
