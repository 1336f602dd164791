import GraftHost
import Synchronization

/// The pages connected to the live channel (`/live`, a WebSocket), and the
/// one way to reach them all: `broadcast`. Each page has a bounded queue of
/// messages; a page that stops reading loses the oldest, never the server's
/// memory.
final class LiveHub: Sendable {
    /// Messages kept for one page that is not reading.
    static let queueLimit = 2_000

    private let clients = Locked<[Int: AsyncStream<String>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A new page: its id, and the messages to send it.
    func connect() -> (id: Int, messages: AsyncStream<String>) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.queueLimit))
        clients.withLock { $0[id] = continuation }
        return (id, stream)
    }

    func disconnect(_ id: Int) {
        clients.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    var count: Int { clients.withLock { $0.count } }

    /// Sends `message` (an object with a `type`) to every connected page.
    func broadcast(_ message: GraftValue) {
        let text = message.jsonText
        for client in clients.withLock({ Array($0.values) }) { client.yield(text) }
    }

    /// Ends every page's stream (the server is stopping).
    func closeAll() {
        for client in clients.withLock({ clients in defer { clients = [:] }; return Array(clients.values) }) { client.finish() }
    }
}
