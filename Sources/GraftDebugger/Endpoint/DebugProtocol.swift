import GraftHost

/// The debug endpoint's wire protocol: newline-delimited JSON over a Unix
/// domain socket. Documented in `Documentation.docc/DebugProtocol.md`.
public enum DebugProtocol {
    /// The protocol's name, in the `hello` answer.
    public static let name = "graft-debug"
    /// The version this build speaks. A client says which it speaks in
    /// `hello`; a different major version is refused.
    public static let version = 1
    /// The longest request line accepted, newline excluded. A longer one
    /// gets `line_too_long` and the client is dropped.
    public static let maximumLineLength = 1 << 20
    /// Clients served at once; the next gets `too_many_clients` and is closed.
    public static let maximumClients = 64
    /// Answers and streamed records a client may leave unread before it is
    /// dropped as stuck (`output_overflow`): one that stopped reading.
    public static let maximumUnsentBytes = 8 << 20
    /// The most records one `tail` or `follow` replays.
    static let maximumReplay = 100_000
}
