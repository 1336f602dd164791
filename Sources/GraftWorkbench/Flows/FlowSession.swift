import Dispatch
import GraftDebugger
import GraftFlows
import GraftHost

/// The flow given with `--flow`, run screen by screen as `graft run` runs
/// it: the page shows the current screen's renders beside the transcript
/// and sends events (`{"instance", "interact", "data"}` or `{"instance",
/// "event", "payload"}`) one at a time. Its transcript also feeds the action
/// log (events, actions, validations), so the actions panel shows the flow.
///
/// `@unchecked Sendable`: the runner is not thread-safe and is only touched
/// on `work`'s serial queue.
final class FlowSession: @unchecked Sendable {
    let document: FlowDocument
    let path: String
    private let host: GraftHost
    private let log: ActionLog
    private let mediaType: MediaType
    private let work = SerialWork(label: "graft.workbench.flow")
    private var runner: FlowRunner?

    init(document: FlowDocument, path: String, host: GraftHost, log: ActionLog, mediaType: MediaType = .html) {
        self.document = document
        self.path = path
        self.host = host
        self.log = log
        self.mediaType = mediaType
    }

    /// The state now, starting the flow on first use.
    func state() async throws -> GraftValue {
        try await work.run {
            self.startIfNeeded()
            return self.json()
        }
    }

    /// Starts again from the first screen with the flow's initial variables.
    func restart() async throws -> GraftValue {
        try await work.run {
            self.runner = nil
            self.startIfNeeded()
            return self.json()
        }
    }

    /// Applies one event line; a malformed one is `invalid_json` naming the field.
    func send(_ line: String) async throws -> GraftValue {
        try await work.run {
            self.startIfNeeded()
            let event: FlowEvent
            do throws(GraftError) {
                event = try FlowEvent(json: line)
            } catch {
                throw WorkbenchError(error)
            }
            guard let runner = self.runner else { return self.json() }
            do throws(GraftError) {
                try runner.send(event)
            } catch {
                throw WorkbenchError(error)
            }
            return self.json()
        }
    }

    /// After a hot swap: the current screen rendered again on the new builds.
    func rerender() async throws -> GraftValue {
        try await work.run {
            guard let runner = self.runner else { return self.json() }
            runner.rerender()
            return self.json()
        }
    }

    // MARK: On the queue

    private func startIfNeeded() {
        guard runner == nil else { return }
        let runner = FlowRunner(host: host, flow: document, mediaType: mediaType, observer: FlowLogFeed(log: log, host: host))
        self.runner = runner
        // Only throws when already started.
        try? runner.start()
    }

    /// `{"type": "flow", "path", "screen", "closed", "variables", "instances":
    /// [{"instance", "component", "mediaType", "output", "placeholder",
    /// "events"}], "transcript": [...]}`: the transcript entries as `graft run
    /// --json` prints them; `events` lists what the instance may emit (the
    /// flow's definition) and what the flow wires.
    private func json() -> GraftValue {
        guard let runner else { return .object(["type": "flow", "path": .string(path)]) }
        let run = runner.json()
        let placements = runner.currentScreen.flatMap { document.screen($0) }?.instances ?? []
        let shown = run["screens"]?.listValue?.last?["instances"]?.listValue ?? []
        let instances: [GraftValue] = shown.map { render in
            guard var object = render.objectValue else { return render }
            if let placement = placements.first(where: { $0.id == render["instance"]?.stringValue }) {
                let declared = document.definition(of: placement.component)?.outputs.map(\.event) ?? []
                let events = Array(Set(declared + placement.wiredEvents)).sorted()
                object["events"] = .list(events.map(GraftValue.string))
            }
            return .object(object)
        }
        var object: [String: GraftValue] = [
            "type": "flow", "path": .string(path), "closed": .bool(runner.isClosed), "variables": .object(runner.variables),
            "screens": .list(document.screens.map { .string($0.id) }), "instances": .list(instances),
            "transcript": run["transcript"] ?? .list([]),
        ]
        if let screen = runner.currentScreen { object["screen"] = .string(screen) }
        return .object(object)
    }
}
