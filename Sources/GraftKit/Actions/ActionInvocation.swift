import CGraft

/// One run of a custom action: its configured params and the payload of the
/// event that triggered it. Valid only while the action runs.
public struct ActionInvocation {
    /// The params configured in the flow (copied from the host).
    public let params: [String: Value]
    /// The triggering event's payload, or `nil` when it had none.
    public let payload: [String: Value]?
    private let context: UnsafePointer<graft_action_context_t>?

    /// An invocation with no host, for testing an action's closure directly;
    /// its ``log(_:_:)`` does nothing.
    public init(params: [String: Value], payload: [String: Value]? = nil) {
        self.init(params: params, payload: payload, context: nil)
    }

    init(params: [String: Value], payload: [String: Value]?,
         context: UnsafePointer<graft_action_context_t>?) {
        self.params = params
        self.payload = payload
        self.context = context
    }

    /// Writes a line to the host's log.
    public func log(_ level: LogLevel, _ message: String) {
        guard let context else { return }
        context.pointee.log?(context, level.tag, message)
    }
}
