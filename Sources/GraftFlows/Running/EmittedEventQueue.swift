import GraftHost
import Synchronization

/// Events instances emitted, waiting to be processed. A component emits
/// from inside `render` or `interact` (or from another thread), while the
/// host still holds that instance; processing then, and maybe calling the
/// same instance again, would re-enter it. So events are queued and the
/// runner processes them after the call has returned.
final class EmittedEventQueue: Sendable {
    private let events = Mutex<[EmittedEvent]>([])

    /// The handler given to `makeInstance(onEvent:)`; safe from any thread.
    var handler: @Sendable (EmittedEvent) -> Void {
        { event in self.events.withLock { $0.append(event) } }
    }

    func popFirst() -> EmittedEvent? {
        events.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// The drift warnings carried by the events still waiting.
    var pendingWarnings: [GraftWarning] {
        events.withLock { $0.flatMap(\.warnings) }
    }

    func removeAll() {
        events.withLock { $0.removeAll() }
    }
}
