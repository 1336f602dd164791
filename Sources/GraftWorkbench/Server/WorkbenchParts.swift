import GraftDebugger
import GraftHost

/// Everything the routes work with, built once per workbench: the host and
/// its action log, the open component sessions, the flow and the attached
/// host when given, and the live channel's hub.
struct WorkbenchParts: Sendable {
    let host: GraftHost
    let log: ActionLog
    let hub: LiveHub
    let sessions: SessionStore
    let flow: FlowSession?
    let attached: AttachedHost?
    /// Validator, action and sandbox calls, one at a time, off the server's threads.
    let calls = SerialWork(label: "graft.workbench.calls")
    /// The folders the watcher reloads plugins from.
    let watching: [String]
    /// Where story files are saved (and read, beside each plugin's own `stories/`).
    let storiesFolder: String
}
