import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// A client of a running host's debug endpoint: `graft debug attach` uses
/// it, and so can any Swift tool.
///
///     let client = try DebugClient(socketPath: "/run/user/1000/myapp.sock")
///     try client.hello()
///     let report = try client.request(["request": "plugins"])["report"]
///     _ = try client.request(["request": "follow", "last": 10])
///     while let line = try client.nextStreamed(timeout: nil) { print(line) }
///
/// Blocking, and meant for one thread at a time (it is not `Sendable`).
/// Errors the host answers with are thrown as `GraftError`s carrying the
/// host's code when it is a Graft code (`custom_component_not_found`), else
/// `invalid_config` with the protocol's code in the message.
public final class DebugClient {
    public let socketPath: String
    private let descriptor: Int32
    /// Answers can be far longer than requests (a large `tail`).
    private var buffer = LineBuffer(limit: 512 << 20)
    private var received: [String] = []
    /// Stream lines that arrived while waiting for an answer.
    private var streamed: [GraftValue] = []
    private var isClosed = false
    private var atEnd = false

    /// Connects. Throws `invalid_config` (or `permission_denied`) saying why,
    /// for example that nothing listens at the path.
    public init(socketPath: String) throws(GraftError) {
        self.socketPath = socketPath
        descriptor = try UnixSocket.make(nonBlocking: false)
        let result: Int32
        // Every property is set from here on: a throw runs deinit, so the
        // socket is closed through close(), once (closing it here as well
        // closed whatever descriptor another thread had opened meanwhile).
        do throws(GraftError) {
            result = try UnixSocket.connect(descriptor, to: socketPath)
        } catch {
            close()
            throw error
        }
        guard result == 0 else {
            close()
            errno = result
            if result == ECONNREFUSED || result == ENOENT {
                throw GraftError(
                    .endpointUnavailable,
                    "nothing listens at \(socketPath) (\(String(cString: strerror(result)))): is the host running with its debug endpoint open?",
                    path: socketPath)
            }
            throw UnixSocket.failure("cannot connect to the debug socket \(socketPath)", path: socketPath)
        }
    }

    deinit { close() }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// The handshake: says which protocol version this client speaks and
    /// returns the host's answer (`protocol`, `version`, `host`, `pid`, …).
    @discardableResult
    public func hello(timeout: Duration = .seconds(10)) throws(GraftError) -> GraftValue {
        try request(["request": "hello", "version": .number(Double(DebugProtocol.version))], timeout: timeout)
    }

    /// Sends `request` and returns its answer (`{"response": …}`); stream
    /// lines that arrive meanwhile are kept for `nextStreamed`. An error
    /// answer is thrown.
    public func request(_ request: [String: GraftValue], timeout: Duration = .seconds(30)) throws(GraftError) -> GraftValue {
        do throws(GraftError) {
            try send(line: GraftValue.object(request).jsonText)
        } catch {
            // The host may have refused this client and closed (too many
            // clients, idle too long): its reason is waiting to be read.
            throw hostsReason(orElse: error)
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let line = try readLine(until: deadline) else {
                throw GraftError(.endpointUnavailable, "the host at \(socketPath) closed the connection before answering.", path: socketPath)
            }
            let value = try Self.parse(line)
            if value["stream"] != nil {
                streamed.append(value)
                continue
            }
            if value["response"]?.stringValue == "error" { throw Self.error(from: value) }
            return value
        }
    }

    /// The next streamed line (`{"stream": "log", "record": …}` or
    /// `{"stream": "log", "skipped": N}`); nil when the host closed the
    /// connection. With a timeout, throws when nothing came in time.
    public func nextStreamed(timeout: Duration?) throws(GraftError) -> GraftValue? {
        if !streamed.isEmpty { return streamed.removeFirst() }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            guard let line = try readLine(until: deadline) else { return nil }
            let value = try Self.parse(line)
            if value["stream"] != nil { return value }
            if value["response"]?.stringValue == "error" { throw Self.error(from: value) }
        }
    }

    /// Writes one raw line (a newline is added): for tools that speak the
    /// protocol themselves, and for tests that send garbage.
    public func send(line: String) throws(GraftError) {
        try send(bytes: Array((line + "\n").utf8))
    }

    /// Writes raw bytes as they are.
    public func send(bytes: [UInt8]) throws(GraftError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw UnixSocket.failure("cannot write to the debug socket \(socketPath)", path: socketPath)
            }
            offset += sent
        }
    }

    /// The next raw line; nil when the host closed the connection. Throws
    /// `invalid_config` when `deadline` passes first.
    public func readLine(until deadline: ContinuousClock.Instant?) throws(GraftError) -> String? {
        while received.isEmpty {
            guard !atEnd else { return nil }
            try waitForInput(until: deadline)
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { atEnd = true; continue }
                throw UnixSocket.failure("cannot read from the debug socket \(socketPath)", path: socketPath)
            }
            if count == 0 {
                atEnd = true
                continue
            }
            let outcome = chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            guard case .lines(let lines) = outcome else {
                throw GraftError(.endpointUnavailable, "the host at \(socketPath) sent a line longer than 512 MiB.", path: socketPath)
            }
            received += lines
        }
        return received.removeFirst()
    }

    private func waitForInput(until deadline: ContinuousClock.Instant?) throws(GraftError) {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    throw GraftError(.endpointUnavailable, "the host at \(socketPath) did not answer in time.", path: socketPath)
                }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw UnixSocket.failure("cannot wait on the debug socket \(socketPath)", path: socketPath)
            }
        }
    }

    /// The error the host sent before closing, if one is waiting; else `error`.
    private func hostsReason(orElse error: GraftError) -> GraftError {
        guard let line = try? readLine(until: .now + .seconds(1)), let value = try? Self.parse(line),
            value["response"]?.stringValue == "error"
        else { return error }
        return Self.error(from: value)
    }

    private static func parse(_ line: String) throws(GraftError) -> GraftValue {
        do {
            return try GraftValue(json: line)
        } catch {
            throw GraftError(.invalidJSON, "the host sent a line that \(error.message)")
        }
    }

    private static func error(from answer: GraftValue) -> GraftError {
        let code = answer["error"]?["code"]?.stringValue ?? "unknown"
        let message = answer["error"]?["message"]?.stringValue ?? "the host answered with an error."
        if let known = GraftError.Code(rawValue: code) { return GraftError(known, message) }
        return GraftError(.endpointUnavailable, "\(code): \(message)")
    }
}
