import Dispatch
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// The structured action log of a running host: events, actions and their
/// results, validator answers, warnings and hot swaps, newest last.
///
///     let log = ActionLog(capacity: 5_000)
///     log.recordSwaps(of: host)
///     let feed = FlowLogFeed(log: log, host: host)
///     let runner = FlowRunner(host: host, flow: flow, observer: feed)
///     …
///     print(log.jsonLines(matching: ActionLogFilter(instance: "delivery"), last: 20))
///
/// Bounded: once `capacity` records are kept, each new one drops the oldest.
/// Thread-safe: any thread may record, read or follow at once. Recording
/// costs one lock, one clock read and one store into the ring (records turn
/// into JSON only when read), so it can stay on in production.
public final class ActionLog: Sendable {
    public static let defaultCapacity = 10_000

    /// How many records are kept at most.
    public let capacity: Int
    private let state: Locked<State>

    private struct State: Sendable {
        var records: RingBuffer<StoredRecord>
        /// The sequence number the next record gets; 1 for the first.
        var nextSequence: UInt64 = 1
        var followers: [FollowerSignal] = []
        var nextFollowerID = 0
    }

    /// - Parameter capacity: records kept at most; values below 1 keep 1.
    public init(capacity: Int = ActionLog.defaultCapacity) {
        self.capacity = max(1, capacity)
        state = Locked(State(records: RingBuffer(capacity: max(1, capacity))))
    }

    // MARK: Recording

    /// Appends `record`, giving it the next sequence number, and wakes followers.
    public func record(_ record: ActionLogRecord) {
        append { sequence in
            var record = record
            record.sequence = sequence
            return .record(record)
        }
    }

    /// Records an event straight from a host instance: pass
    /// `{ log.record($0) }` (or a closure that also does the app's own work)
    /// as `makeInstance(onEvent:)` when no flow runner is in between.
    public func record(_ event: EmittedEvent) {
        let time = Date()
        append { sequence in .emitted(event, sequence: sequence, time: time) }
    }

    /// The one place records enter the ring. Followers are woken outside
    /// the lock; with none, recording takes no other step.
    private func append(_ make: (UInt64) -> StoredRecord) {
        let followers: [FollowerSignal]? = state.withLock { state in
            state.records.append(make(state.nextSequence))
            state.nextSequence += 1
            return state.followers.isEmpty ? nil : state.followers
        }
        if let followers {
            for follower in followers { follower.wake() }
        }
    }

    /// Records every reload of `host` (swaps, loads, removals, failures)
    /// from now on. Returns the observer's token, for
    /// `host.removeSwapObserver(_:)`.
    @discardableResult
    public func recordSwaps(of host: GraftHost) -> Int {
        host.addSwapObserver { [weak self] swap in self?.record(ActionLogRecord(swap)) }
    }

    /// Records every act the sandbox refuses a plugin of `host` from now on,
    /// as a warning record naming the plugin (`sandbox_denied`), for as long
    /// as the host lives.
    public func recordSandboxDenials(of host: GraftHost) {
        host.addSandboxObserver { [weak self] pluginID, _, warnings in
            self?.record(ActionLogRecord(pluginID: pluginID, warnings: warnings, detail: .warning))
        }
    }

    /// Forgets every record; sequence numbers keep counting.
    public func removeAll() {
        state.withLock { $0.records.removeAll() }
    }

    // MARK: Reading

    /// Records kept now.
    public var count: Int { state.withLock { $0.records.count } }

    /// The sequence number of the newest record; 0 before the first.
    public var lastSequence: UInt64 { state.withLock { $0.nextSequence - 1 } }

    /// The newest `last` records that match `filter` (all of them when
    /// `last` is nil), oldest first.
    public func records(matching filter: ActionLogFilter = .all, last: Int? = nil) -> [ActionLogRecord] {
        state.withLock { state in
            let wanted = last ?? state.records.count
            guard wanted > 0 else { return [] }
            return Self.newest(wanted, matching: filter, in: state.records)
        }
    }

    /// The same records as JSON lines: one compact object per line, sorted
    /// keys, each line ending in a newline.
    public func jsonLines(matching filter: ActionLogFilter = .all, last: Int? = nil) -> String {
        records(matching: filter, last: last).map { $0.json.jsonText + "\n" }.joined()
    }

    /// The records newer than `sequence`, how many newer ones were already
    /// dropped from the ring (a follower that fell behind), and the newest
    /// sequence number handed out, to read after next time.
    func records(after sequence: UInt64) -> (records: [ActionLogRecord], skipped: UInt64, newest: UInt64) {
        state.withLock { state in
            let newest = state.nextSequence - 1
            let oldest = state.nextSequence - UInt64(state.records.count)
            let first = max(sequence + 1, oldest)
            let skipped = first > newest ? newest - min(sequence, newest) : first - (sequence + 1)
            guard first <= newest else { return ([], skipped, newest) }
            let start = Int(first - oldest)
            return ((start..<state.records.count).map { state.records[$0].record }, skipped, newest)
        }
    }

    // MARK: Following

    /// Delivers every record matching `filter` from now on, in order, on
    /// `queue`, starting with the newest `replaying` records already kept.
    /// `deliver` gets the records and how many were dropped before it could
    /// read them (nonzero only when it falls `capacity` records behind). Keep
    /// the follower and call `cancel()` when done.
    public func follow(
        matching filter: ActionLogFilter = .all, replaying: Int = 0, on queue: DispatchQueue,
        deliver: @escaping @Sendable (_ records: [ActionLogRecord], _ skipped: UInt64) -> Void
    ) -> ActionLogFollower {
        let source = DispatchSource.makeUserDataAddSource(queue: queue)
        let (follower, replay) = state.withLock { state in
            let id = state.nextFollowerID
            state.nextFollowerID += 1
            let follower = ActionLogFollower(
                id: id, log: self, filter: filter, cursor: state.nextSequence - 1, source: source, deliver: deliver)
            state.followers.append(FollowerSignal(id: id, source: source))
            return (follower, replaying > 0 ? Self.newest(replaying, matching: filter, in: state.records) : [])
        }
        // Queued before the source is resumed, so the replay comes first.
        if !replay.isEmpty { queue.async { deliver(replay, 0) } }
        follower.start()
        return follower
    }

    func removeFollower(id: Int) {
        state.withLock { $0.followers.removeAll { $0.id == id } }
    }

    private static func newest(_ wanted: Int, matching filter: ActionLogFilter, in records: RingBuffer<StoredRecord>) -> [ActionLogRecord] {
        var found: [ActionLogRecord] = []
        var index = records.count - 1
        while index >= 0, found.count < wanted {
            if records[index].matches(filter) { found.append(records[index].record) }
            index -= 1
        }
        return found.reversed()
    }
}
