import CGraft

/// What the host gives one component instance: emit events, log, and learn
/// the container size.
///
/// It wraps the host's `graft_component_context_t`, which is valid until the
/// instance is destroyed. Calls made after that are ignored, so a component
/// may keep the context (or hand it to another thread) without checking.
public final class ComponentContext: @unchecked Sendable {
    // Safe to share: the host's context functions are [thread-safe] while the
    // instance lives, and `gate` makes destroy wait for calls from other
    // threads and turns every later call into a no-op. `pointer` never changes.
    private let pointer: UnsafePointer<graft_component_context_t>
    private let gate = LiveGate()

    init(_ pointer: UnsafePointer<graft_component_context_t>) {
        self.pointer = pointer
    }

    /// Emits `event` with an object payload. The host copies it during the call.
    public func emit(_ event: String, payload: [String: Value]) {
        withPointer { context in
            CValueArena.with(.object(payload)) { value in
                context.pointee.emit?(context, event, value)
            }
        }
    }

    /// Emits `event` with no payload.
    public func emit(_ event: String) {
        withPointer { context in context.pointee.emit?(context, event, nil) }
    }

    /// Writes a line to the host's log, tagged with this instance.
    public func log(_ level: LogLevel, _ message: String) {
        withPointer { context in context.pointee.log?(context, level.tag, message) }
    }

    /// The container size; zero (unbounded) once the instance is gone.
    public var containerSize: ContainerSize {
        var size = ContainerSize(width: 0, height: 0)
        withPointer { context in
            if let get = context.pointee.get_container_size { size = ContainerSize(get(context)) }
        }
        return size
    }

    /// Records a contract warning such as `input_type_mismatch`.
    func warn(code: String, message: String) {
        withPointer { context in context.pointee.warn?(context, code, message) }
    }

    /// Called by `destroy`: waits for calls on other threads, then closes.
    func invalidate() {
        gate.close()
    }

    private func withPointer(_ body: (UnsafePointer<graft_component_context_t>) -> Void) {
        guard gate.enter() else { return }
        defer { gate.leave() }
        body(pointer)
    }
}
