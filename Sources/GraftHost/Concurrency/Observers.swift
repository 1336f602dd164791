/// Callbacks told of every event, each kept under a token that is never
/// handed out again (a counter, not the largest token + 1).
final class Observers<Event: Sendable>: Sendable {
    private let state = Locked<(next: Int, observers: [Int: @Sendable (Event) -> Void])>((0, [:]))

    func add(_ observer: @escaping @Sendable (Event) -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    func remove(_ token: Int) {
        state.withLock { _ = $0.observers.removeValue(forKey: token) }
    }

    var isEmpty: Bool { state.withLock { $0.observers.isEmpty } }

    /// Tells every observer, on this thread, outside the lock.
    func notify(_ event: Event) {
        for observer in state.withLock({ Array($0.observers.values) }) { observer(event) }
    }
}
