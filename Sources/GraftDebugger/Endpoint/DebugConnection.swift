import Dispatch
import Foundation
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
    private let onClose: @Sendable (Int) -> Void

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

    init(id: Int, descriptor: Int32, responder: DebugResponder, onClose: @escaping @Sendable (Int) -> Void) {
        self.id = id
        self.descriptor = descriptor
        self.responder = responder
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
        }
    }

    /// Drops the client: stops following, closes the socket. Safe from any thread, more than once.
    func close() {
        queue.async { [self] in shutDown() }
    }

    // MARK: Reading

    private func readAvailable() {
        guard !closed else { return }
        let count = readBuffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        guard count > 0 else {
            shutDown()  // the client left (0) or the socket failed
            return
        }
        let outcome = readBuffer.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        switch outcome {
        case .lines(let received):
            for line in received where !closed { handle(line) }
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
        case .sandbox(let sandboxRequest):
            respond(request, id: id, try responder.sandbox(sandboxRequest))
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
        if unsent.count > DebugProtocol.maximumUnsentBytes { shutDown() }
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
        onClose(id)
    }
}
