import Dispatch
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// One client of the debug endpoint: reads request lines, answers them, and
/// streams the log while the client follows it.
///
/// `@unchecked Sendable`: every mutable property is read and written only on
/// `queue` (the read source, the follower and retries all run there, and
/// `close()` hops onto it), which serializes them like a lock would.
final class DebugConnection: @unchecked Sendable {
    let id: Int
    private let descriptor: Int32
    private let queue: DispatchQueue
    private let responder: DebugResponder
    private let limits: DebugEndpoint.Limits
    private let onClose: @Sendable (Int) -> Void
    /// Checks the idle and line deadlines.
    private var watchdog: DispatchSourceTimer?
    /// When the client last finished a request (or connected).
    private var lastRequest = ContinuousClock.now
    /// When the line being received began; nil between lines.
    private var lineStarted: ContinuousClock.Instant?

    private var readSource: DispatchSourceRead?
    private var lines = LineBuffer(limit: DebugProtocol.maximumLineLength)
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    private var unsent: [UInt8] = []
    private var retryScheduled = false
    /// How long to wait before trying a socket that would block again:
    /// doubles while the client reads nothing, so a stalled client costs
    /// a wake-up every 100 ms at most.
    private var retryDelay = DebugConnection.shortestRetry
    private static let shortestRetry = 1
    private static let longestRetry = 100
    private var greeted = false
    private var follower: ActionLogFollower?
    private var closed = false

    init(
        id: Int, descriptor: Int32, responder: DebugResponder, limits: DebugEndpoint.Limits,
        onClose: @escaping @Sendable (Int) -> Void
    ) {
        self.id = id
        self.descriptor = descriptor
        self.responder = responder
        self.limits = limits
        self.onClose = onClose
        queue = DispatchQueue(label: "graft.debug.client.\(id)")
    }

    func start() {
        queue.async { [self] in
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler { [weak self] in self?.readAvailable() }
            // The descriptor is closed only once the source can no longer use it.
            source.setCancelHandler { [descriptor] in Glibc.close(descriptor) }
            readSource = source
            source.resume()
            // A slot is held only while used: checked a few times per deadline.
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let period = min(limits.idle, limits.line) / 4
            let nanoseconds = Int(period.components.seconds) * 1_000_000_000 + Int(period.components.attoseconds / 1_000_000_000)
            let interval = DispatchTimeInterval.nanoseconds(max(nanoseconds, 1_000_000))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.checkDeadlines() }
            watchdog = timer
            timer.resume()
        }
    }

    private func checkDeadlines() {
        guard !closed else { return }
        let now = ContinuousClock.now
        if let lineStarted, now - lineStarted > limits.line {
            drop(DebugProtocolError(
                "line_timeout", "a request line was begun and not finished within \(limits.line); the connection is closed."))
        } else if lineStarted == nil, follower == nil, now - lastRequest > limits.idle {
            // A client mid-line is held to the line deadline alone: its idle clock started at its last
            // request, before the line began, and would otherwise win the race and name the wrong reason.
            drop(DebugProtocolError("idle_timeout", "no request for \(limits.idle); the connection is closed."))
        }
    }

    /// Tells the client why, then closes. Past `output_overflow` what was
    /// queued is dropped first, so the reason is what the socket takes next.
    private func drop(_ error: DebugProtocolError) {
        if error.code == "output_overflow" { unsent = [] }
        fail(error, request: nil, id: nil)
        shutDown()
    }

    /// Drops the client: stops following, closes the socket. Safe from any thread, more than once.
    func close() {
        queue.async { [self] in shutDown() }
    }

    // MARK: Reading

    /// Reads until the socket has nothing more: the read source may not fire
    /// again for an end of stream that came with the last bytes (a client
    /// that left mid-line would otherwise keep its slot for good).
    private func readAvailable() {
        while !closed {
            let count = readBuffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            guard count > 0 else {
                shutDown()  // the client left (0) or the socket failed
                return
            }
            take(count)
        }
    }

    private func take(_ count: Int) {
        let outcome = readBuffer.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        switch outcome {
        case .lines(let received):
            if !received.isEmpty { lastRequest = .now }
            lineStarted = lines.hasPartialLine ? (received.isEmpty ? lineStarted ?? .now : .now) : nil
            for line in received where !closed {
                handle(line)
                // Answers nobody reads are not kept without end: a client
                // that pipelines requests and reads nothing is dropped.
                if unsent.count > DebugProtocol.maximumUnsentBytes {
                    drop(DebugProtocolError(
                        "output_overflow",
                        "more than \(DebugProtocol.maximumUnsentBytes) bytes of answers were left unread; the connection is closed."))
                }
            }
        case .lineTooLong:
            fail(
                DebugProtocolError(
                    "line_too_long", "a request line is longer than \(DebugProtocol.maximumLineLength) bytes; the connection is closed."),
                request: nil, id: nil)
            shutDown()
        }
    }

    private func handle(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        let value: GraftValue
        do {
            value = try GraftValue(json: line)
        } catch {
            fail(DebugProtocolError("invalid_json", "the request \(error.message)"), request: nil, id: nil)
            return
        }
        let id = value["id"]
        let request: DebugRequest
        do {
            request = try DebugRequest(json: value)
        } catch {
            fail(error, request: value["request"]?.stringValue, id: id)
            return
        }
        let isHello = if case .hello = request { true } else { false }
        if !isHello, !greeted {
            fail(
                DebugProtocolError(
                    "handshake_required", "send {\"request\": \"hello\", \"version\": \(DebugProtocol.version)} first."),
                request: request.name, id: id)
            return
        }
        do throws(DebugProtocolError) {
            try answer(request, id: id)
        } catch {
            fail(error, request: request.name, id: id)
            if error.code == "unsupported_version" { shutDown() }
        }
    }

    private func answer(_ request: DebugRequest, id: GraftValue?) throws(DebugProtocolError) {
        switch request {
        case .hello(let version):
            let fields = try responder.hello(version: version)
            greeted = true
            respond(request, id: id, fields)
        case .plugins:
            respond(request, id: id, responder.plugins())
        case .tail(let last, let filter):
            respond(request, id: id, responder.tail(last: last, filter: filter))
        case .follow(let last, let filter):
            follower?.cancel()
            // Deliveries run on this same queue, after this answer: the
            // client reads "following" before the first record.
            follower = responder.log.follow(matching: filter, replaying: last, on: queue) { [weak self] records, skipped in
                self?.stream(records, skipped: skipped)
            }
            respond(request, id: id, ["following": true])
        case .unfollow:
            follower?.cancel()
            follower = nil
            respond(request, id: id, ["following": false])
        case .dryRun(let dryRunRequest):
            respond(request, id: id, try responder.dryRun(dryRunRequest))
        }
    }

    // MARK: Writing

    private func respond(_ request: DebugRequest, id: GraftValue?, _ fields: [String: GraftValue]) {
        var object = fields
        object["response"] = .string(request.name)
        if let id { object["id"] = id }
        send(.object(object))
    }

    private func fail(_ error: DebugProtocolError, request: String?, id: GraftValue?) {
        var object: [String: GraftValue] = ["response": "error", "error": error.json]
        if let request { object["request"] = .string(request) }
        if let id { object["id"] = id }
        send(.object(object))
    }

    /// Runs on `queue` (the follower delivers there). A follower that has
    /// left `maximumUnsentBytes` unread has stopped reading: it is dropped
    /// rather than let the host's memory grow. (Answers are not held to the
    /// limit: one is bounded by the log's capacity and the client asked for it.)
    private func stream(_ records: [ActionLogRecord], skipped: UInt64) {
        guard !closed else { return }
        if skipped > 0 { send(["stream": "log", "skipped": .number(Double(skipped))]) }
        for record in records { send(.object(["stream": "log", "record": record.json])) }
        if unsent.count > DebugProtocol.maximumUnsentBytes {
            drop(DebugProtocolError(
                "output_overflow",
                "more than \(DebugProtocol.maximumUnsentBytes) bytes of the log were left unread; the connection is closed."))
        }
    }

    private func send(_ value: GraftValue) {
        guard !closed else { return }
        unsent.append(contentsOf: value.jsonText.utf8)
        unsent.append(0x0A)
        flush()
    }

    /// Sends what the socket takes now and retries later for the rest.
    private func flush() {
        guard !closed, !unsent.isEmpty else { return }
        let sent = unsent.withUnsafeBytes { UnixSocket.send(descriptor, $0) }
        guard let sent else {
            shutDown()
            return
        }
        unsent.removeFirst(sent)
        retryDelay = sent > 0 ? Self.shortestRetry : min(retryDelay * 2, Self.longestRetry)
        guard !unsent.isEmpty, !retryScheduled else { return }
        retryScheduled = true
        queue.asyncAfter(deadline: .now() + .milliseconds(retryDelay)) { [weak self] in
            guard let self else { return }
            retryScheduled = false
            flush()
        }
    }

    private func shutDown() {
        guard !closed else { return }
        // Whatever the socket takes now still reaches the client (an error
        // saying why it is dropped); the rest is discarded.
        if !unsent.isEmpty { _ = unsent.withUnsafeBytes { UnixSocket.send(descriptor, $0) } }
        closed = true
        unsent = []
        follower?.cancel()
        follower = nil
        readSource?.cancel()
        readSource = nil
        watchdog?.cancel()
        watchdog = nil
        onClose(id)
    }
}
