import GraftHost
import Hummingbird
import HummingbirdWebSocket

/// The `/live` WebSocket: the server pushes, the page only listens. Every
/// message is one JSON object with a `type`:
/// `hello` (on connecting), `log` (action-log records), `render` (a
/// component session rendered again, after a hot swap), `swap` (a plugin
/// file was reloaded, or its new build refused), `flow` (the flow's state
/// after a swap) and `attached` (the attached host's records and status).
enum LiveChannel {
    static func add(to router: Router<BasicWebSocketRequestContext>, hub: LiveHub, hello: @escaping @Sendable () -> GraftValue) {
        router.ws("/live") { inbound, outbound, _ in
            let (id, messages) = hub.connect()
            defer { hub.disconnect(id) }
            try await outbound.write(.text(hello().jsonText))
            // Pushes until the hub ends the stream (the server stops), then
            // closes, which also ends the read loop below.
            let writer = Task {
                for await message in messages { try await outbound.write(.text(message)) }
                try await outbound.close(.goingAway, reason: "the workbench stopped")
            }
            defer { writer.cancel() }
            // Read until the page goes away; what it sends is ignored.
            for try await _ in inbound.messages(maxSize: 1 << 16) {}
        }
    }
}
