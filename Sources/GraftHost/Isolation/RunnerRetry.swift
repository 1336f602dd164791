/// The runner's one retry policy: whether a call that failed is made once
/// more, and how. No call is made more than twice. `PluginRunner.call`,
/// `RunnerInstance`'s calls and its create with a render ahead all ask it.
enum RunnerRetry: Equatable {
    /// The failure is the call's answer.
    case none
    /// The child died of something likely not this call's doing: the same
    /// request once more, on a new child.
    case resend
    /// The instance's child is gone and a new one runs: create the instance
    /// there again from its last inputs (a `plugin_restarted` warning says its
    /// state was lost), then make the call.
    case recreate
    /// The child died in a create or in the render sent behind it, which the
    /// host cannot tell apart: create again, alone; the first render reports
    /// the failure.
    case createAlone

    /// What a call was when it failed.
    enum Call {
        /// A request sent by `PluginRunner.call`. `posted`: requests posted
        /// before it were still unanswered; `unsent`: it never reached the
        /// child (the send failed, or the child died before taking it from
        /// its ring); `newChild`: the child it was sent to is no longer the
        /// runner's; `aboutInstance`: it is about an instance of that child.
        case request(posted: Bool, unsent: Bool, newChild: Bool, aboutInstance: Bool)
        /// A call about an instance, as its `RunnerInstance` made it.
        case instanceCall
        /// A create that carried its first render.
        case createWithRender
    }

    /// How a runner's child fails a call when it dies, hangs or runs out of memory.
    static let deaths: Set<GraftError.Code> = [.pluginCrashed, .pluginTimeout, .pluginMemoryLimit]

    static func after(_ error: GraftError, attempt: Int, in call: Call) -> RunnerRetry {
        guard attempt == 0 else { return .none }
        switch call {
        case .request(let posted, let unsent, let newChild, let aboutInstance):
            // Stopped for another call, or dead with another's request or before
            // this one reached it: likely not this call's doing.
            let restarted = error.code == .pluginRestarted
            guard newChild, posted || unsent || restarted, restarted || deaths.contains(error.code) else { return .none }
            return aboutInstance ? .recreate : .resend
        case .instanceCall:
            return error.code == .pluginRestarted ? .recreate : .none
        case .createWithRender:
            return deaths.contains(error.code) ? .createAlone : .none
        }
    }
}
