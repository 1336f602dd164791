/// Where the workbench listens and the names a browser may use for it:
/// loopback only, so `127.0.0.1:PORT` and `localhost:PORT` are the only
/// Host headers and `http://` those the only origins it answers.
public struct WorkbenchAddress: Sendable, Hashable {
    public static let loopback = "127.0.0.1"
    public let port: Int

    public init(port: Int) {
        self.port = port
    }

    /// The Host header values a browser sends for this workbench.
    var hosts: [String] { ["\(Self.loopback):\(port)", "localhost:\(port)"] }

    /// The origins of the workbench's own pages.
    var origins: [String] { hosts.map { "http://\($0)" } }

    /// The page's address, without the token.
    public var base: String { "http://\(Self.loopback):\(port)/" }

    /// The cookie that carries the token after the first visit: named after
    /// the port, since cookies are per host and two workbenches may run.
    var cookieName: String { "graft_workbench_\(port)" }
}
