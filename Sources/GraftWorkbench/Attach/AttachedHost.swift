import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftHost
import GraftSupport

/// A running host reached through its debug endpoint (`--attach SOCKET`),
/// the way `graft debug attach` reaches it: its plugin report on request,
/// and its action log followed live on a thread of its own, relayed to the
/// pages as `{"type": "attached", "records": [...]}`. When the host goes
/// away the follower says so (`{"type": "attached", "connected": false,
/// "error"}`) and tries again every second, so a restarted host is picked
/// up by itself.
final class AttachedHost: Sendable {
    /// Records kept for a page that opens later.
    static let kept = 500
    /// How often the follower wakes to see whether it should stop.
    static let poll = Duration.milliseconds(250)

    let socketPath: String
    private let hub: LiveHub
    private let state = Locked(State())
    private let calls = SerialWork(label: "graft.workbench.attach")

    private struct State: Sendable {
        var connected = false
        var error: GraftError?
        var records: [GraftValue] = []
        var stopped = false
        var remote: GraftValue = .null
    }

    init(socketPath: String, hub: LiveHub) {
        self.socketPath = socketPath
        self.hub = hub
    }

    func start() {
        startThread(named: "graft.attach") { [self] in follow() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// `{"socket", "connected", "error", "host", "records"}`.
    var json: GraftValue {
        state.withLock { state in
            var object: [String: GraftValue] = [
                "socket": .string(socketPath), "connected": .bool(state.connected), "records": .list(state.records),
                "host": state.remote,
            ]
            if let error = state.error { object["error"] = error.workbenchJSON }
            return .object(object)
        }
    }

    /// The host's plugin report, asked on a connection of its own.
    func plugins() async throws -> GraftValue {
        let socketPath = self.socketPath
        return try await calls.run {
            do throws(GraftError) {
                let client = try DebugClient(socketPath: socketPath)
                defer { client.close() }
                try client.hello()
                return try client.request(["request": "plugins"])["report"] ?? .null
            } catch {
                throw WorkbenchError(error)
            }
        }
    }

    // MARK: The follower thread

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func follow() {
        while !isStopped {
            do throws(GraftError) {
                let client = try DebugClient(socketPath: socketPath)
                defer { client.close() }
                let hello = try client.hello()
                _ = try client.request(["request": "follow", "last": .number(Double(Self.kept))])
                state.withLock {
                    $0.connected = true
                    $0.error = nil
                    $0.remote = hello
                }
                hub.broadcast(.object(["type": "attached", "connected": true, "host": hello]))
                while !isStopped {
                    let line: GraftValue?
                    do throws(GraftError) {
                        line = try client.nextStreamed(timeout: Self.poll)
                    } catch where Self.isQuiet(error) {
                        continue
                    }
                    guard let line else {
                        throw GraftError(.endpointUnavailable, "the host at \(socketPath) closed its debug endpoint.", path: socketPath)
                    }
                    if let record = line["record"] { relay([record]) }
                }
            } catch {
                let changed = state.withLock { state -> Bool in
                    defer {
                        state.connected = false
                        state.error = error
                    }
                    return state.connected || state.error != error
                }
                if changed {
                    hub.broadcast(.object(["type": "attached", "connected": false, "error": error.workbenchJSON]))
                }
                // One second between tries, waking early to stop.
                for _ in 0..<20 where !isStopped { usleep(50_000) }
            }
        }
    }

    private func relay(_ records: [GraftValue]) {
        state.withLock { state in
            state.records += records
            if state.records.count > Self.kept { state.records.removeFirst(state.records.count - Self.kept) }
        }
        hub.broadcast(.object(["type": "attached", "connected": true, "records": .list(records)]))
    }

    /// `DebugClient` says "did not answer in time" when a wait with a
    /// timeout passes quietly: for a follower that is the normal case.
    private static func isQuiet(_ error: GraftError) -> Bool {
        error.code == .invalidConfig && error.message.hasSuffix("did not answer in time.")
    }
}
