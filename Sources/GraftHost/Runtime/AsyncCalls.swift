import Dispatch
import GraftSupport

/// The `async` face of the calls that can reach a child: a task awaiting an
/// isolated call suspends, and the call waits on its child on a thread of its
/// own, never on one of Swift's cooperative threads (one per core: a few
/// hanging plugins would stall every task of a server). In-process calls run
/// inline, as their synchronous forms do.
///
/// Cancelling the task abandons the call: the task gets `call_cancelled` at
/// once, and the call runs to its end (its deadline at most) on its thread,
/// its answer dropped. Calls to one instance stay serialized, so the
/// instance's next call waits for the abandoned one and finds it usable.
enum AsyncCalls {
    /// Blocking calls run here: a concurrent queue that gets a thread per
    /// call waiting (Dispatch overcommits for work that blocks).
    private static let queue = DispatchQueue(label: "graft.calls", attributes: .concurrent)

    /// `body`'s result, run inline when `inline`, else on a thread of the
    /// queue while the task suspends. `what` names the call in `call_cancelled`.
    static func run<T: Sendable>(
        _ what: @autoclosure () -> String, inline: Bool, _ body: @escaping @Sendable () throws(GraftError) -> T
    ) async throws(GraftError) -> T {
        if Task.isCancelled { throw cancelled(what()) }
        if inline { return try body() }
        let description = what()
        let waiting = Waiting<T>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, GraftError>, Never>) in
                waiting.start(continuation)
                queue.async {
                    waiting.finish(Result { () throws(GraftError) -> T in try body() })
                }
            }
        } onCancel: {
            waiting.finish(.failure(cancelled(description)))
        }
        return try result.get()
    }

    static func cancelled(_ what: String) -> GraftError {
        GraftError(.callCancelled, "\(what) was abandoned: the task awaiting it was cancelled; it ends on its own thread, its answer dropped.")
    }
}

/// A continuation resumed once: by the call's end or by the task's
/// cancellation, whichever comes first (the cancellation may come before
/// the continuation exists).
private final class Waiting<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = Lock()
    private var continuation: CheckedContinuation<Result<T, GraftError>, Never>?
    /// The first result given: any later one is dropped, and a `start` that
    /// comes after it resumes with it at once.
    private var outcome: Result<T, GraftError>?

    func start(_ continuation: CheckedContinuation<Result<T, GraftError>, Never>) {
        let outcome = lock.withLock { () -> Result<T, GraftError>? in
            if self.outcome == nil { self.continuation = continuation }
            return self.outcome
        }
        if let outcome { continuation.resume(returning: outcome) }
    }

    func finish(_ result: Result<T, GraftError>) {
        let waiting = lock.withLock { () -> CheckedContinuation<Result<T, GraftError>, Never>? in
            guard outcome == nil else { return nil }
            outcome = result
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: result)
    }
}

extension ComponentInstance {
    /// Renders in `mediaType`, suspending while an isolated plugin renders;
    /// see `render(as:)` and `AsyncCalls` (cancellation: `call_cancelled`).
    public func render(as mediaType: MediaType = .plain) async throws(GraftError) -> Rendering {
        try await AsyncCalls.run("render of instance '\(id)'", inline: runsInProcess) { () throws(GraftError) in
            try self.render(as: mediaType) as Rendering
        }
    }

    /// Simulates a user interaction, suspending while an isolated plugin
    /// answers; see `interact(_:data:)`. A cancelled wait answers false with
    /// a `call_cancelled` warning.
    @discardableResult
    public func interact(_ action: String, data: GraftValue? = nil) async -> Bool {
        do throws(GraftError) {
            return try await AsyncCalls.run("interaction '\(action)' of instance '\(id)'", inline: runsInProcess) {
                self.interact(action, data: data) as Bool
            }
        } catch {
            core.record(GraftWarning(error.code, error.message, instanceID: id))
            return false
        }
    }

    /// Replaces the inputs, suspending while an isolated plugin takes them;
    /// see `update(inputs:)`.
    public func update(inputs: [String: GraftValue]) async throws(GraftError) {
        try await AsyncCalls.run("update of instance '\(id)'", inline: runsInProcess) { () throws(GraftError) in
            try self.update(inputs: inputs) as Void
        }
    }

    /// Whether the instance's plugin runs in this process (its calls then run inline).
    var runsInProcess: Bool { component.plugin.runner == nil }
}

extension GraftHost {
    /// Creates an instance of the component a flow names `reference`
    /// (`date_picker@2`), suspending while an isolated plugin creates it.
    public func makeInstance(
        of reference: String, id: String? = nil, inputs: [String: GraftValue] = [:],
        containerSize: ContainerSize = .unbounded, onEvent: @escaping @Sendable (EmittedEvent) -> Void = { _ in }
    ) async throws(GraftError) -> ComponentInstance {
        try await makeInstance(of: ComponentReference(parsing: reference), id: id, inputs: inputs, containerSize: containerSize, onEvent: onEvent)
    }

    /// Creates an instance, suspending while an isolated plugin creates it;
    /// see `makeInstance(of:id:inputs:containerSize:onEvent:)`. An abandoned
    /// create's instance is closed when it arrives.
    public func makeInstance(
        of reference: ComponentReference, id: String? = nil, inputs: [String: GraftValue] = [:],
        containerSize: ContainerSize = .unbounded, onEvent: @escaping @Sendable (EmittedEvent) -> Void = { _ in }
    ) async throws(GraftError) -> ComponentInstance {
        try await AsyncCalls.run("create of \(reference)", inline: !isolates) { () throws(GraftError) in
            try self.makeInstance(of: reference, id: id, inputs: inputs, containerSize: containerSize, onEvent: onEvent) as ComponentInstance
        }
    }

    /// Validates, suspending while an isolated plugin's validator answers;
    /// see `validate(_:value:params:)`.
    public func validate(_ name: String, value: GraftValue, params: [String] = []) async throws(GraftError) -> ValidationOutcome {
        try await AsyncCalls.run("validator '\(name)'", inline: !isolates) { () throws(GraftError) in
            try self.validate(name, value: value, params: params) as ValidationOutcome
        }
    }

    /// Invokes a custom action, suspending while an isolated plugin runs it;
    /// see `invokeAction(_:params:payload:)`.
    public func invokeAction(
        _ key: String, params: [String: GraftValue] = [:], payload: GraftValue? = nil
    ) async throws(GraftError) -> ActionOutcome {
        try await AsyncCalls.run("action '\(key)'", inline: !isolates) { () throws(GraftError) in
            try self.invokeAction(key, params: params, payload: payload) as ActionOutcome
        }
    }
}
