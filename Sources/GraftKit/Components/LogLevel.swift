import CGraft

/// The level of a line written to the host's log.
public enum LogLevel: Sendable, Hashable {
    case debug
    case info
    case warning
    case error

    /// The `GRAFT_LOG_*` constant.
    var tag: UInt32 {
        switch self {
        case .debug: GRAFT_LOG_DEBUG
        case .info: GRAFT_LOG_INFO
        case .warning: GRAFT_LOG_WARNING
        case .error: GRAFT_LOG_ERROR
        }
    }
}
