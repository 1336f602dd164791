import GraftHost

extension GraftHost {
    /// Opens a debug endpoint for this host; see `DebugEndpoint.open`.
    public func openDebugEndpoint(
        socketPath: String, log: ActionLog, flow: FlowWiring? = nil
    ) throws(GraftError) -> DebugEndpoint {
        try DebugEndpoint.open(host: self, socketPath: socketPath, log: log, flow: flow)
    }
}
