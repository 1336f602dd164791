import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// Runs a flow without an app: renders the screens' instances through the
/// real plugins, feeds them events, runs the wired actions and records
/// everything in a transcript.
///
///     let runner = FlowRunner(host: host, flow: flow, observer: { print($0.json().jsonText) })
///     try runner.start()                                     // renders the first screen
///     try runner.send(.interact(instance: "date", action: "select", data: ["date": "2026-12-24"]))
///     print(runner.variables, runner.currentScreen ?? "closed")
///
/// A runner is used from one task at a time (it is not `Sendable`). Plugins
/// may emit from any thread; their events are queued and processed after the
/// call into the plugin returns, never from inside it. Events emitted between
/// calls are processed at the next `send`. The observer receives every entry
/// as it is recorded, and the end of every step (see `FlowObserver`), and
/// must not call back into the runner.
public final class FlowRunner {
    public let flow: FlowDocument
    let host: GraftHost
    let containerSizeOverride: ContainerSize?
    let mediaType: MediaType
    let observer: (any FlowObserver)?
    let queue = EmittedEventQueue()

    /// The flow's variables now.
    public internal(set) var variables: [String: GraftValue]
    /// Everything recorded so far, in order.
    public internal(set) var transcript: [TranscriptEntry] = []
    /// True once a `close` action ran.
    public internal(set) var isClosed = false

    var screen: FlowScreen?
    var slots: [ScreenSlot] = []
    /// Where a `go_to` leads once the current list of actions has run.
    var pendingScreen: String?
    /// Instance warnings recorded since the current screen was entered.
    var warningsThisVisit: Set<GraftWarning> = []

    /// Events processed for one call before the runner assumes a loop (an
    /// action re-rendering an instance that emits again, and so on) and stops.
    static let eventLimit = 1000

    /// - Parameters:
    ///   - containerSize: when given, every instance gets this size; otherwise
    ///     the screen's `size`, then the flow's `size`, then unbounded.
    ///   - mediaType: what instances are asked to render.
    ///   - observer: receives each transcript entry as it is recorded.
    public convenience init(
        host: GraftHost, flow: FlowDocument, containerSize: ContainerSize? = nil, mediaType: MediaType = .plain,
        observer: (@Sendable (TranscriptEntry) -> Void)? = nil
    ) {
        self.init(
            host: host, flow: flow, containerSize: containerSize, mediaType: mediaType,
            flowObserver: observer.map(ClosureFlowObserver.init(receive:)))
    }

    /// A runner whose entries, and the end of each step, go to `observer`
    /// (the debugger's `FlowLogFeed`, for one).
    public convenience init(
        host: GraftHost, flow: FlowDocument, containerSize: ContainerSize? = nil, mediaType: MediaType = .plain,
        observer: some FlowObserver
    ) {
        self.init(host: host, flow: flow, containerSize: containerSize, mediaType: mediaType, flowObserver: observer)
    }

    private init(
        host: GraftHost, flow: FlowDocument, containerSize: ContainerSize?, mediaType: MediaType, flowObserver: (any FlowObserver)?
    ) {
        self.host = host
        self.flow = flow
        self.containerSizeOverride = containerSize
        self.mediaType = mediaType
        self.observer = flowObserver
        self.variables = flow.variables
    }

    deinit {
        for slot in slots { slot.instance?.close() }
    }

    /// The id of the screen shown now; nil before `start` and after `close`.
    public var currentScreen: String? { isClosed ? nil : screen?.id }

    /// Every warning recorded so far.
    public var warnings: [GraftWarning] {
        transcript.compactMap { entry in if case .warning(let warning) = entry.kind { warning } else { nil } }
    }

    /// Enters the first screen: resolves its bindings, creates and renders
    /// its instances, and processes what they emit. Throws only when the
    /// runner has already started.
    public func start() throws(GraftError) {
        guard screen == nil, !isClosed else { throw GraftError(.invalidConfig, "the flow has already started.") }
        // Reading a document guarantees at least one screen.
        guard let first = flow.screens.first else { throw GraftError(.invalidConfig, "the flow has no screens.") }
        defer { observer?.flowStepFinished() }
        enter(first)
        processQueuedEvents()
    }

    /// Applies one event to an instance on the current screen and runs what
    /// follows from it. Problems with the event itself (an instance not on
    /// the screen, an unknown interaction) are recorded as warnings. Throws
    /// only when the flow has not started or is closed.
    public func send(_ event: FlowEvent) throws(GraftError) {
        guard screen != nil else { throw GraftError(.invalidConfig, "the flow has not started; call start() first.") }
        guard !isClosed else {
            throw GraftError(.invalidConfig, "the flow is closed; the event for instance '\(event.instance)' was not applied.")
        }
        defer { observer?.flowStepFinished() }
        processQueuedEvents()
        apply(event)
        processQueuedEvents()
    }

    /// Appends an entry and shows it to the observer.
    func record(_ kind: TranscriptEntry.Kind) {
        let entry = TranscriptEntry(kind: kind)
        transcript.append(entry)
        observer?.flowRecorded(entry)
    }

    func warn(_ code: GraftError.Code, _ message: String, instance: String? = nil) {
        record(.warning(GraftWarning(code, message, instanceID: instance)))
    }
}
