import Dispatch
import GraftHost

/// A live subscription to an action log, made by `ActionLog.follow`. Records
/// reach its `deliver` closure on the queue it was given until `cancel()`.
public final class ActionLogFollower: Sendable {
    private let id: Int
    private weak let log: ActionLog?
    private let filter: ActionLogFilter
    private let deliver: @Sendable ([ActionLogRecord], UInt64) -> Void
    private let state: Locked<State>

    /// `@unchecked Sendable`: the dispatch source is thread-safe (signalled
    /// from any thread, cancelled once); the cursor is only read and written
    /// under the mutex.
    private struct State: @unchecked Sendable {
        var cursor: UInt64
        var source: DispatchSourceUserDataAdd?
    }

    init(
        id: Int, log: ActionLog, filter: ActionLogFilter, cursor: UInt64, source: DispatchSourceUserDataAdd,
        deliver: @escaping @Sendable ([ActionLogRecord], UInt64) -> Void
    ) {
        self.id = id
        self.log = log
        self.filter = filter
        self.deliver = deliver
        state = Locked(State(cursor: cursor, source: source))
    }

    func start() {
        guard let source = state.withLock({ $0.source }) else { return }
        source.setEventHandler { [weak self] in self?.drain() }
        source.resume()
    }

    /// Reads everything recorded since the last wake-up. Wake-ups coalesce,
    /// so one drain may carry many records.
    private func drain() {
        guard let log, let cursor = state.withLock({ $0.source == nil ? nil : $0.cursor }) else { return }
        let (records, skipped, newest) = log.records(after: cursor)
        state.withLock { $0.cursor = newest }
        let matching = filter.isEmpty ? records : records.filter(filter.matches)
        if !matching.isEmpty || skipped > 0 { deliver(matching, skipped) }
    }

    /// Stops delivery. A delivery already running on the queue finishes.
    public func cancel() {
        let source: DispatchSourceUserDataAdd? = state.withLock { state in
            defer { state.source = nil }
            return state.source
        }
        guard let source else { return }
        log?.removeFollower(id: id)
        source.cancel()
    }

    deinit { cancel() }
}
