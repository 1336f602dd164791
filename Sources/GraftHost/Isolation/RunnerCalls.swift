/// The host's side of the runner protocol, without I/O: the requests in
/// flight on one child connection, their deadlines, and the events that came
/// for them. Frames and time go in; frames to send and decisions (deliver,
/// kill) come out. It has no lock, no thread and no descriptor: `PluginRunner`
/// holds it under its lock and does what it decides, and tests drive it with
/// bytes alone (`RunnerCallsTests`).
///
/// Frames carry request ids, so answers may come in any order, and two kinds
/// of request travel without a round trip of their own: a posted one (a
/// destroy, whose answer is skipped) waits in `queued` for the next request's
/// write, and a follower (a render sent behind its create) is answered into
/// its entry until a caller collects it.
struct RunnerCalls<Plugin: RunnerSubject, Context: AnyObject> {
    struct Answer { var kind: Wire.Kind; var reader: WireReader }

    /// An event an instance emitted; its warnings are still in `rest`.
    struct Event {
        var context: Context
        var name: String
        var payload: GraftValue?
        var rest: WireReader
    }

    /// A request and what came for it: a class, filled in place (one per call).
    final class Request {
        let kind: Wire.Kind
        let plugin: Plugin
        let what: CallName
        /// The instance it concerns: its events go with the answer.
        var context: Context?
        /// When its caller gives up; nil while nobody waits for it (a
        /// follower, until it is collected).
        var until: ContinuousClock.Instant?
        var deadline: Duration
        var outcome: Result<Answer, GraftError>?
        var events: [Event] = []
        var eventBytes = 0
        /// Whether it could not even be sent (the child had died between calls).
        var sendFailed = false

        var isOpen: Bool { outcome == nil }

        init(kind: Wire.Kind, plugin: Plugin, what: CallName, context: Context?, until: ContinuousClock.Instant?, deadline: Duration) {
            self.kind = kind
            self.plugin = plugin
            self.what = what
            self.context = context
            self.until = until
            self.deadline = deadline
        }
    }

    /// A child to stop: `error` is what `culprit` fails with (the other
    /// requests in flight, innocent, fail with `plugin_restarted`).
    struct Kill {
        var plugin: Plugin
        var error: GraftError
        var culprit: UInt32?
    }

    enum Decision {
        case none
        /// A request has its outcome: what the sandbox refused meanwhile is the plugin's.
        case answered(Plugin, Context?)
        /// Events emitted with no call about their instance in flight (a plugin's own thread).
        case deliver([Event])
        /// A posted request failed: nobody waits to hear it.
        case log(GraftError)
        case kill(Kill)
    }

    /// Events one call may bring (and `outputLimit` bytes of them): past either, the child is killed.
    static var eventLimit: Int { 1024 }

    let outputLimit: Int
    private(set) var requests: [UInt32: Request] = [:]
    private var nextID: UInt32 = 0
    /// Where each live instance's events go, by its number in the child.
    private var contexts: [UInt32: Context] = [:]
    /// Posted requests: their answers are skipped when they arrive.
    private var unanswered: Set<UInt32> = []
    /// Posted frames not sent yet: they go with the next request's write.
    private(set) var queued: [UInt8] = []
    /// Events of instances whose create is not answered yet, by number: they
    /// go with the create's answer (the child sends them just before it).
    private var unclaimed: [UInt32: [(name: String, payload: GraftValue?, rest: WireReader)]] = [:]
    private var unclaimedCount = 0
    /// Events that came while no call about their instance was in flight,
    /// counted against the limits until a call ends.
    private var looseBytes = 0
    private var looseCount = 0

    init(outputLimit: Int) {
        self.outputLimit = outputLimit
    }

    /// The last id given: it moves with every request (the idle watch compares it).
    var lastID: UInt32 { nextID }

    var inFlight: Bool { requests.values.contains { $0.isOpen } }

    /// Whether a caller waits for a request still open (a follower not collected does not count).
    var awaitedInFlight: Bool { requests.values.contains { $0.isOpen && $0.until != nil } }

    /// Followers answered or not that nobody collected yet.
    var uncollected: Int { requests.values.count { $0.until == nil } }

    /// The nearest deadline of every request a caller waits for.
    var nearestDeadline: ContinuousClock.Instant? { requests.values.compactMap { $0.isOpen ? $0.until : nil }.min() }

    /// The oldest request still open.
    var firstOpen: (id: UInt32, request: Request)? {
        requests.lazy.filter { $0.value.isOpen }.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    // MARK: Requests out

    /// A new request: its frame, after what was posted and not sent yet, is
    /// appended to `frames`. Without `deadline`, nobody waits for it until
    /// `await` (a follower).
    mutating func add(
        _ kind: Wire.Kind, plugin: Plugin, what: CallName, context: Context?, deadline: Duration?, payload: [UInt8],
        into frames: inout [UInt8], now: ContinuousClock.Instant? = nil
    ) -> UInt32 {
        if !queued.isEmpty { frames += takeQueued() }
        nextID &+= 1
        requests[nextID] = Request(
            kind: kind, plugin: plugin, what: what, context: context, until: deadline.map { (now ?? .now) + $0 },
            deadline: deadline ?? .zero)
        frames += Wire.frame(kind, id: nextID, payload: payload)
        return nextID
    }

    /// What was posted and not sent yet, now to be sent.
    mutating func takeQueued() -> [UInt8] {
        guard !queued.isEmpty else { return [] }
        let taken = queued
        queued = []
        return taken
    }

    /// Queues a request whose answer nobody waits for; returns its id.
    @discardableResult
    mutating func post(_ kind: Wire.Kind, payload: [UInt8]) -> UInt32 {
        nextID &+= 1
        queued += Wire.frame(kind, id: nextID, payload: payload)
        unanswered.insert(nextID)
        return nextID
    }

    var hasPosted: Bool { !unanswered.isEmpty }

    func sendFailed(_ id: UInt32) { requests[id]?.sendFailed = true }

    /// A caller now waits for a follower (`deadline` from now), about `context`;
    /// false if it is not known (its child ended).
    func await(_ id: UInt32, context: Context?, deadline: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        guard let request = requests[id] else { return false }
        request.context = context ?? request.context
        if request.until == nil {
            request.deadline = deadline
            request.until = now + deadline
        }
        return true
    }

    /// The outcome of `id` and the events that came with it, if it has one;
    /// the request is then forgotten.
    mutating func take(_ id: UInt32) -> (outcome: Result<Answer, GraftError>, events: [Event])? {
        guard let request = requests[id], let outcome = request.outcome else { return nil }
        requests[id] = nil
        looseBytes = 0
        looseCount = 0
        return (outcome, request.events)
    }

    /// Gives up on a request: its answer is skipped when it arrives.
    mutating func forget(_ id: UInt32) {
        if let request = requests.removeValue(forKey: id), request.isOpen { unanswered.insert(id) }
    }

    /// Fails a request no child can answer any more.
    func fail(_ id: UInt32, _ error: GraftError) { requests[id]?.outcome = .failure(error) }

    mutating func attach(_ context: Context?, to number: UInt32) { contexts[number] = context }

    func context(of number: UInt32) -> Context? { contexts[number] }

    // MARK: Frames in

    /// A frame the child sent.
    mutating func received(_ header: Wire.Header, _ payload: [UInt8]) -> Decision {
        var reader = WireReader(payload)
        if header.kind == .emitted { return route(&reader, bytes: payload.count) }
        if unanswered.remove(header.id) != nil {
            guard header.kind == .failed, let error = try? reader.childError(path: requests.values.first?.plugin.subjectPath)
            else { return .none }
            return .log(error)
        }
        guard let request = requests[header.id], request.isOpen else {
            guard let plugin = requests.values.first?.plugin else { return .none }
            return .kill(Self.abandon(plugin, "answered request \(header.id), which is not in flight"))
        }
        if header.kind == .failed {
            guard let error = try? reader.childError(path: request.plugin.subjectPath) else {
                let kill = Self.abandon(request.plugin, "sent an error that does not decode, or carries a code only the host may give")
                request.outcome = .failure(kill.error)
                return .kill(kill)
            }
            request.outcome = .failure(error)
            return .answered(request.plugin, request.context)
        }
        if header.kind == .created {
            var number = reader
            if let number = try? number.u32(), let events = unclaimed.removeValue(forKey: number), let context = request.context {
                unclaimedCount -= events.count
                request.events += events.map { Event(context: context, name: $0.name, payload: $0.payload, rest: $0.rest) }
            }
            if !requests.contains(where: { $0.key != header.id && $0.value.kind == .create && $0.value.isOpen }) {
                unclaimed = [:]
                unclaimedCount = 0
            }
        }
        request.outcome = .success(Answer(kind: header.kind, reader: reader))
        return .answered(request.plugin, request.context)
    }

    /// An event an instance emitted: to the call in flight about that
    /// instance, else (a plugin's own thread) to be delivered at once; an
    /// instance not created yet keeps it for its create's answer. Past
    /// `eventLimit` events or `outputLimit` bytes in one call, the child is killed.
    private mutating func route(_ reader: inout WireReader, bytes: Int) -> Decision {
        guard let number = try? reader.u32(), let name = try? reader.string(), let hasPayload = try? reader.bool() else {
            return .none
        }
        let payload = hasPayload ? try? reader.value() : nil
        guard let context = contexts[number] else {
            // Only an instance being created may not be known yet.
            guard let create = requests.first(where: { $0.value.kind == .create && $0.value.isOpen }) else { return .none }
            unclaimedCount += 1
            guard unclaimedCount <= Self.eventLimit else { return flooded(create.key) }
            unclaimed[number, default: []].append((name, payload, reader))
            return .none
        }
        let event = Event(context: context, name: name, payload: payload, rest: reader)
        if let (id, request) = requests.first(where: { $0.value.isOpen && $0.value.context === context }) {
            request.eventBytes += bytes
            request.events.append(event)
            return request.events.count > Self.eventLimit || request.eventBytes > outputLimit ? flooded(id) : .none
        }
        looseBytes += bytes
        looseCount += 1
        guard looseCount > Self.eventLimit || looseBytes > outputLimit else { return .deliver([event]) }
        return flooded(nil)
    }

    /// A child that sent more events than one call (`id`, or none: from a
    /// plugin's own threads) may bring.
    /// With no request at all in flight, nothing names the plugin to blame:
    /// the events are dropped.
    private mutating func flooded(_ id: UInt32?) -> Decision {
        let request = id.flatMap { requests[$0] }
        if let id { requests[id]?.events = [] }
        guard let plugin = request?.plugin ?? requests.values.first?.plugin else { return .none }
        let source = request.map { "in \($0.what)" } ?? "from its own threads"
        let what = "emitted more than \(Self.eventLimit) events or \(outputLimit) bytes of events \(source)"
        return .kill(Kill(plugin: plugin, error: Self.limitError(plugin, .outputTooLarge, what), culprit: id))
    }

    /// Time passed: the request whose deadline is the earliest of those
    /// passed, if any, kills its child.
    func overdue(now: ContinuousClock.Instant = .now) -> Kill? {
        let late = requests.filter { $0.value.isOpen && $0.value.until.map { $0 <= now } == true }
            .min { $0.value.until! < $1.value.until! }
        guard let (id, request) = late else { return nil }
        let what = "(\(request.plugin.subjectPath)) did not answer \(request.what) within \(request.deadline)"
        return Kill(plugin: request.plugin, error: Self.limitError(request.plugin, .pluginTimeout, what), culprit: id)
    }

    /// The child broke the frame format.
    func violation(_ reason: String) -> Kill? {
        guard let (id, request) = requests.first else { return nil }
        // With one call in flight, the child was serving it: it fails with the reason, not as a bystander.
        return Kill(plugin: request.plugin, error: Self.abandon(request.plugin, "broke the protocol (\(reason))").error, culprit: requests.count == 1 ? id : nil)
    }

    /// The child is gone: every request open fails with `failure(request)`,
    /// and every follower nobody waits for is lost with it.
    mutating func end(failing failure: (UInt32, Request) -> GraftError) {
        contexts = [:]
        unanswered = []
        queued = []
        unclaimed = [:]
        unclaimedCount = 0
        for (id, request) in requests where request.isOpen { request.outcome = .failure(failure(id, request)) }
        requests = requests.filter { $0.value.until != nil }
    }
}
