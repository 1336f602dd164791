import Dispatch
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// A running host's debug endpoint: a Unix domain socket that `graft debug
/// attach` (or any client speaking `DebugProtocol`) connects to, to list the
/// plugins, read or follow the action log, and try components in a dry run
/// (`DryRun`: recorded, not acted on).
///
///     let log = ActionLog()
///     let endpoint = try DebugEndpoint.open(host: host, socketPath: "/run/user/1000/myapp.sock", log: log)
///     defer { endpoint.close() }
///
/// The socket is created with mode 0600 in a folder that must belong to
/// this user and be writable by no one else. Nothing at the path is ever
/// replaced except a stale socket (one nobody listens on). Each client is
/// served on its own queue; one that sends garbage gets an error, one that
/// sends a line over 1 MiB or stops reading while following is dropped, and
/// the host carries on. `close()` (or releasing the endpoint) disconnects
/// every client and removes the socket file.
public final class DebugEndpoint: Sendable {
    public let socketPath: String
    public let log: ActionLog
    private let listener: Int32
    /// The socket file's device and inode, so `close` removes only the file
    /// this endpoint created, never one that replaced it.
    private let fileIdentity: FileIdentity
    private let responder: DebugResponder
    private let limits: Limits
    private let queue = DispatchQueue(label: "graft.debug.accept")
    private let state = Locked(State())

    /// `@unchecked Sendable`: the dispatch source is thread-safe and only
    /// cancelled under the mutex; connections are `Sendable` themselves.
    private struct State: @unchecked Sendable {
        var acceptSource: DispatchSourceRead?
        var connections: [Int: DebugConnection] = [:]
        var nextID = 1
        var isClosed = false
    }

    private struct FileIdentity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// How long a client may hold a slot without using it.
    public struct Limits: Sendable, Hashable {
        /// A client that sends no request for this long (and follows no
        /// log) gets `idle_timeout` and is closed.
        public var idle: Duration
        /// A request line begun and not finished within this gets
        /// `line_timeout` and the client is closed.
        public var line: Duration

        public init(idle: Duration = .seconds(60), line: Duration = .seconds(10)) {
            self.idle = idle
            self.line = line
        }
    }

    /// Opens the endpoint for `host`.
    ///
    /// - Parameters:
    ///   - log: the action log clients tail and follow.
    ///   - flow: the flow the host runs, so `try` requests can name an
    ///     instance and see which actions its events would run.
    ///   - limits: how long an idle client or an unfinished line may hold a slot.
    /// - Throws: `permission_denied` when the folder is not the user's own or
    ///   something other than a stale socket is at the path; `invalid_config`
    ///   for a path the kernel cannot take (over 107 bytes) or a socket error.
    public static func open(
        host: GraftHost, socketPath: String, log: ActionLog, flow: FlowWiring? = nil, limits: Limits = Limits()
    ) throws(GraftError) -> DebugEndpoint {
        let path = socketPath.hasPrefix("/") ? socketPath : FileManager.default.currentDirectoryPath + "/" + socketPath
        try SocketPathClaim.claim(path)
        let listener = try UnixSocket.make(nonBlocking: true)
        let identity: FileIdentity
        do throws(GraftError) {
            identity = try bindAndListen(listener, at: path)
        } catch {
            Glibc.close(listener)
            throw error
        }
        let endpoint = DebugEndpoint(
            socketPath: path, log: log, listener: listener, fileIdentity: identity,
            responder: DebugResponder(host: host, log: log, dryRun: DryRun(host: host, flow: flow)), limits: limits)
        endpoint.startAccepting()
        return endpoint
    }

    private init(
        socketPath: String, log: ActionLog, listener: Int32, fileIdentity: FileIdentity, responder: DebugResponder, limits: Limits
    ) {
        self.limits = limits
        self.socketPath = socketPath
        self.log = log
        self.listener = listener
        self.fileIdentity = fileIdentity
        self.responder = responder
    }

    deinit { close() }

    /// Binds with mode 0600 from the start: Linux gives the socket file the
    /// mode of the socket's inode, which `fchmod` sets before `bind`; the
    /// `chmod` after it covers kernels that do not.
    private static func bindAndListen(_ listener: Int32, at path: String) throws(GraftError) -> FileIdentity {
        guard fchmod(listener, 0o600) == 0 else { throw UnixSocket.failure("cannot set the debug socket's mode") }
        let bound = try UnixSocket.withAddress(path) { address, length in bind(listener, address, length) == 0 }
        guard bound else {
            if errno == EADDRINUSE {
                throw GraftError(.endpointUnavailable, "\(path) appeared while the debug endpoint was opening; it was left alone.", path: path)
            }
            throw UnixSocket.failure("cannot bind the debug socket \(path)", path: path)
        }
        var status = stat()
        guard chmod(path, 0o600) == 0, stat(path, &status) == 0, listen(listener, 64) == 0 else {
            let error = UnixSocket.failure("cannot listen on the debug socket \(path)", path: path)
            unlink(path)
            throw error
        }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    private func startAccepting() {
        let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptPending() }
        source.setCancelHandler { [listener] in Glibc.close(listener) }
        state.withLock { $0.acceptSource = source }
        source.resume()
    }

    /// Clients connected now.
    public var clientCount: Int { state.withLock { $0.connections.count } }

    /// Stops listening, disconnects every client and removes the socket
    /// file (if it is still the one this endpoint created). Idempotent.
    public func close() {
        let (source, connections): (DispatchSourceRead?, [DebugConnection]) = state.withLock { state in
            guard !state.isClosed else { return (nil, []) }
            state.isClosed = true
            defer {
                state.acceptSource = nil
                state.connections = [:]
            }
            return (state.acceptSource, Array(state.connections.values))
        }
        guard let source else { return }
        source.cancel()
        for connection in connections { connection.close() }
        var status = stat()
        if stat(socketPath, &status) == 0,
            FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) == fileIdentity
        {
            unlink(socketPath)
        }
    }

    private func acceptPending() {
        while true {
            let client = UnixSocket.accept(listener)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // EAGAIN: nothing more to accept now (or a transient error; the source fires again)
            }
            admit(client)
        }
    }

    private func admit(_ client: Int32) {
        let connection: DebugConnection? = state.withLock { state in
            guard !state.isClosed, state.connections.count < DebugProtocol.maximumClients else { return nil }
            let id = state.nextID
            state.nextID += 1
            let connection = DebugConnection(id: id, descriptor: client, responder: responder, limits: limits) { [weak self] id in
                self?.state.withLock { _ = $0.connections.removeValue(forKey: id) }
            }
            state.connections[id] = connection
            return connection
        }
        guard let connection else {
            let refusal = GraftValue.object([
                "response": "error",
                "error": DebugProtocolError(
                    "too_many_clients", "the host serves \(DebugProtocol.maximumClients) debug clients at once; try again later."
                ).json,
            ])
            var line = Array((refusal.jsonText + "\n").utf8)
            _ = line.withUnsafeMutableBytes { UnixSocket.send(client, UnsafeRawBufferPointer($0)) }
            Glibc.close(client)
            return
        }
        connection.start()
    }
}
