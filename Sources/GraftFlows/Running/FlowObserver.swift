/// What a `FlowRunner` tells as it runs: each transcript entry as it is
/// recorded, and the end of each step (`start`, `send`, `rerender`), so that
/// an observer that groups entries (the debugger's action log holds an
/// event back for the warnings that follow it) can publish the last group
/// without being told.
///
/// Called on the runner's thread; an observer must not call back into the
/// runner.
public protocol FlowObserver: Sendable {
    func flowRecorded(_ entry: TranscriptEntry)
    func flowStepFinished()
}

extension FlowObserver {
    public func flowStepFinished() {}
}

/// A closure given as `FlowRunner(observer:)`.
struct ClosureFlowObserver: FlowObserver {
    let receive: @Sendable (TranscriptEntry) -> Void
    func flowRecorded(_ entry: TranscriptEntry) { receive(entry) }
}
