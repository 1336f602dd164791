import Testing

@testable import GraftHost

/// The runner's protocol in memory: frames and time in, frames and decisions
/// out. No child, no fork, no compiled plugin: the tests play the child.
@Suite("The runner's protocol, in memory")
struct RunnerCallsTests {
    final class Plugin: RunnerSubject {
        var subjectID: String { "com.example.memory" }
        var subjectPath: String { "/plugins/memory.so" }
    }

    final class Instance {}

    typealias Calls = RunnerCalls<Plugin, Instance>

    let plugin = Plugin()
    let start = ContinuousClock.now

    func calls(outputLimit: Int = 1 << 20) -> Calls { Calls(outputLimit: outputLimit) }

    /// Adds a request with `deadline` from `start`; returns its id and the bytes to send.
    func send(
        _ calls: inout Calls, _ kind: Wire.Kind = .render, context: Instance? = nil, deadline: Duration? = .seconds(1),
        payload: [UInt8] = [1, 2, 3]
    ) -> (id: UInt32, bytes: [UInt8]) {
        var bytes: [UInt8] = []
        let id = calls.add(
            kind, plugin: plugin, what: "\(kind) #\(calls.lastID + 1)", context: context, deadline: deadline, payload: payload,
            into: &bytes, now: start)
        return (id, bytes)
    }

    /// What a child sends: one frame, split into its header and payload.
    func frame(_ kind: Wire.Kind, id: UInt32, _ payload: [UInt8] = []) -> (Wire.Header, [UInt8]) {
        let bytes = Wire.frame(kind, id: id, payload: payload)
        return (try! Wire.header(bytes[..<Wire.headerSize]), Array(bytes[Wire.headerSize...]))
    }

    func answer(_ calls: inout Calls, _ kind: Wire.Kind, id: UInt32, _ payload: [UInt8] = []) -> Calls.Decision {
        let (header, body) = frame(kind, id: id, payload)
        return calls.received(header, body)
    }

    func emitted(number: UInt32, _ name: String = "changed", padding: Int = 0) -> [UInt8] {
        var writer = WireWriter()
        writer.u32(number)
        writer.string(name + String(repeating: " ", count: padding))
        writer.bool(true)
        writer.value(.number(7))
        writer.warnings([])
        return writer.bytes
    }

    func failed(_ code: GraftError.Code, _ message: String) -> [UInt8] {
        var writer = WireWriter()
        writer.error(GraftError(code, message))
        return writer.bytes
    }

    func killed(_ decision: Calls.Decision) -> Calls.Kill? {
        if case .kill(let kill) = decision { return kill }
        return nil
    }

    @Test("pipelined requests are answered in any order, each to its own caller, with the bytes the child sent")
    func answersInAnyOrder() throws {
        var calls = calls()
        let first = send(&calls), second = send(&calls), third = send(&calls)
        #expect(try Wire.header(first.bytes[..<Wire.headerSize]) == Wire.Header(kind: .render, id: first.id, length: 3))
        for id in [third.id, first.id, second.id] {
            guard case .answered = answer(&calls, .rendered, id: id, [UInt8(id)]) else {
                Issue.record("answer to \(id) not taken")
                return
            }
        }
        for id in [first.id, second.id, third.id] {
            let taken = calls.take(id)
            var answer = try #require(taken).outcome.get()
            #expect(answer.kind == .rendered)
            #expect(try answer.reader.u8() == UInt8(id))
        }
        #expect(!calls.inFlight)
        let again = calls.take(first.id)
        #expect(again == nil)
    }

    @Test("an answer to a request that is not in flight kills the child as broken, blaming no request")
    func answerToNothing() {
        var calls = calls()
        let request = send(&calls)
        let kill = killed(answer(&calls, .rendered, id: request.id + 40))
        #expect(kill?.error.code == .pluginCrashed)
        #expect(kill?.culprit == nil)
        #expect(kill?.error.message.contains("answered request \(request.id + 40), which is not in flight") == true)
        // A second answer to a request already answered is one too.
        _ = answer(&calls, .rendered, id: request.id)
        #expect(killed(answer(&calls, .rendered, id: request.id))?.error.code == .pluginCrashed)
    }

    @Test("a late answer to a forgotten request, or to a posted one, is skipped; a posted request's failure is only logged")
    func lateAnswersAreSkipped() {
        var calls = calls()
        let forgotten = send(&calls)
        calls.forget(forgotten.id)
        let posted = calls.post(.destroy, payload: [0, 0, 0, 0])
        #expect(calls.hasPosted)
        guard case .none = answer(&calls, .rendered, id: forgotten.id) else {
            Issue.record("a forgotten request's answer was not skipped")
            return
        }
        guard case .log(let error) = answer(&calls, .failed, id: posted, failed(.instanceCreateFailed, "no such instance")) else {
            Issue.record("a posted request's failure was not logged")
            return
        }
        #expect(error.code == .instanceCreateFailed)
        #expect(error.path == nil)  // no request in flight names the file
        #expect(!calls.hasPosted)
    }

    @Test("posted requests leave with the next request, in the same write, before it")
    func postedGoFirst() throws {
        var calls = calls()
        let posted = calls.post(.destroy, payload: [9, 0, 0, 0])
        #expect(calls.queued.count == Wire.headerSize + 4)
        let request = send(&calls)
        #expect(calls.queued.isEmpty)
        let firstHeader = try Wire.header(request.bytes[..<Wire.headerSize])
        #expect(firstHeader.kind == .destroy && firstHeader.id == posted)
        let second = Wire.headerSize + 4
        #expect(try Wire.header(request.bytes[second..<second + Wire.headerSize]).id == request.id)
    }

    @Test("a request past its deadline kills the child: it fails with plugin_timeout, the earliest late one is the culprit")
    func deadlines() {
        var calls = calls()
        let slow = send(&calls, deadline: .milliseconds(200))
        let slower = send(&calls, deadline: .milliseconds(100))
        let follower = send(&calls, deadline: nil)
        #expect(calls.nearestDeadline == start + .milliseconds(100))
        #expect(calls.overdue(now: start + .milliseconds(99)) == nil)
        let kill = calls.overdue(now: start + .milliseconds(300))
        #expect(kill?.culprit == slower.id)
        #expect(kill?.error.code == .pluginTimeout)
        #expect(kill?.error.message.contains("did not answer render #2 within 0.1 seconds") == true)
        _ = answer(&calls, .rendered, id: slower.id)
        #expect(calls.overdue(now: start + .milliseconds(300))?.culprit == slow.id)
        // Nobody waits for a follower until it is collected: it has no deadline.
        _ = answer(&calls, .rendered, id: slow.id)
        #expect(calls.overdue(now: start + .seconds(60)) == nil)
        #expect(calls.uncollected == 1)
        let awaited = calls.await(follower.id, context: nil, deadline: .seconds(1), now: start)
        #expect(awaited)
        #expect(calls.overdue(now: start + .seconds(2))?.culprit == follower.id)
        #expect(calls.uncollected == 0)
    }

    @Test("the child dies mid-answer: every open request fails as told, answers not taken stay, followers nobody waits for go")
    func childDies() throws {
        var calls = calls()
        let answered = send(&calls), open = send(&calls), other = send(&calls), follower = send(&calls, deadline: nil)
        _ = answer(&calls, .rendered, id: answered.id)
        calls.attach(Instance(), to: 5)
        _ = calls.post(.destroy, payload: [5, 0, 0, 0])
        calls.end { id, request in
            GraftError(id == open.id ? .pluginCrashed : .pluginRestarted, "\(request.what) ended")
        }
        let kept = calls.take(answered.id), crashed = calls.take(open.id), restarted = calls.take(other.id)
        #expect(try kept?.outcome.get().kind == .rendered)
        #expect(throws: GraftError.self) { try crashed?.outcome.get() }
        #expect(restarted.map { (try? $0.outcome.get()) == nil } == true)
        #expect(calls.requests[follower.id] == nil)
        let lost = !calls.await(follower.id, context: nil, deadline: .seconds(1))
        #expect(lost)
        #expect(calls.queued.isEmpty && !calls.hasPosted)
        #expect(calls.context(of: 5) == nil)
        #expect(!calls.inFlight)
    }

    @Test("an event goes with the call in flight about its instance, or at once when none is; a creating instance's wait for its create")
    func eventsFindTheirCall() throws {
        var calls = calls()
        let shown = Instance()
        calls.attach(shown, to: 1)
        // No call about it in flight: delivered at once.
        guard case .deliver(let loose) = answer(&calls, .emitted, id: 0, emitted(number: 1)) else {
            Issue.record("a loose event was not delivered")
            return
        }
        #expect(loose.first?.name == "changed" && loose.first?.context === shown)
        // A call about it in flight: with its answer.
        let render = send(&calls, context: shown)
        guard case .none = answer(&calls, .emitted, id: 0, emitted(number: 1, "tapped")) else {
            Issue.record("an event during its call was not kept for it")
            return
        }
        _ = answer(&calls, .rendered, id: render.id)
        let rendered = calls.take(render.id)
        #expect(try #require(rendered).events.map(\.name) == ["tapped"])
        // An instance being created: its events wait for the create's answer, which names it.
        let created = Instance()
        let create = send(&calls, .create, context: created)
        _ = answer(&calls, .emitted, id: 0, emitted(number: 2, "ready"))
        var number = WireWriter()
        number.u32(2)
        number.warnings([])
        _ = answer(&calls, .created, id: create.id, number.bytes)
        let answered = calls.take(create.id)
        let events = try #require(answered).events
        #expect(events.map(\.name) == ["ready"] && events.first?.context === created)
        // With no create in flight, an unknown instance's event is dropped.
        guard case .none = answer(&calls, .emitted, id: 0, emitted(number: 99)) else {
            Issue.record("an unknown instance's event was not dropped")
            return
        }
    }

    @Test("more events in one call than the limit, or more bytes, kill the child for that call (output_too_large)")
    func eventFloods() {
        var calls = calls(outputLimit: 4096)
        let flooded = Instance()
        calls.attach(flooded, to: 1)
        let render = send(&calls, context: flooded)
        var decision = Calls.Decision.none
        for _ in 0...Calls.eventLimit {
            decision = answer(&calls, .emitted, id: 0, emitted(number: 1, "e"))
            if killed(decision) != nil { break }
        }
        #expect(killed(decision)?.culprit == render.id)
        #expect(killed(decision)?.error.code == .outputTooLarge)
        #expect(calls.requests[render.id]?.events.isEmpty == true)

        var bytes = self.calls(outputLimit: 4096)
        bytes.attach(flooded, to: 1)
        let other = send(&bytes, context: flooded)
        #expect(killed(answer(&bytes, .emitted, id: 0, emitted(number: 1, padding: 2100))) == nil)
        #expect(killed(answer(&bytes, .emitted, id: 0, emitted(number: 1, padding: 2100)))?.error.code == .outputTooLarge)
        _ = other
    }

    @Test("events from a plugin's own threads meet the same limits between calls; a call's end resets their count")
    func looseFloods() {
        var calls = calls()
        calls.attach(Instance(), to: 1)
        let unrelated = send(&calls)
        var kill: Calls.Kill?
        for _ in 0...Calls.eventLimit {
            kill = killed(answer(&calls, .emitted, id: 0, emitted(number: 1)))
            if kill != nil { break }
        }
        #expect(kill?.culprit == nil)
        #expect(kill?.error.message.contains("from its own threads") == true)
        _ = unrelated

        var reset = self.calls()
        reset.attach(Instance(), to: 1)
        for _ in 0..<Calls.eventLimit { _ = answer(&reset, .emitted, id: 0, emitted(number: 1)) }
        let call = send(&reset)
        _ = answer(&reset, .rendered, id: call.id)
        _ = reset.take(call.id)
        #expect(killed(answer(&reset, .emitted, id: 0, emitted(number: 1))) == nil)
    }

    @Test("a child's error is its caller's; one with a code only the host gives, or that does not decode, kills the child")
    func childErrors() throws {
        var calls = calls()
        let refused = send(&calls)
        _ = answer(&calls, .failed, id: refused.id, failed(.renderFailed, "no \u{1B}[31mcolour"))
        let outcome = calls.take(refused.id)
        let error = #expect(throws: GraftError.self) { try outcome?.outcome.get() }
        #expect(error?.code == .renderFailed && error?.path == "/plugins/memory.so")
        #expect(error?.message.contains("\u{1B}") == false)

        let lying = send(&calls)
        let kill = killed(answer(&calls, .failed, id: lying.id, failed(.hashMismatch, "trust me")))
        #expect(kill?.error.code == .pluginCrashed)
        let lied = calls.take(lying.id)
        #expect((try? lied?.outcome.get()) == nil)
        let garbled = send(&calls)
        #expect(killed(answer(&calls, .failed, id: garbled.id, [0xFF, 0xFF]))?.error.code == .pluginCrashed)
    }

    @Test("garbage in an event or an answer is survived: nothing is delivered, nothing crashes")
    func garbage() {
        var calls = calls()
        calls.attach(Instance(), to: 1)
        for payload: [UInt8] in [[], [1], [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], [1, 0, 0, 0, 1, 0, 0, 0, 65, 1, 9]] {
            if case .deliver(let events) = answer(&calls, .emitted, id: 0, payload) {
                #expect(events.allSatisfy { $0.payload == nil })
            }
        }
        let violation = calls.violation("bad magic")
        #expect(violation == nil)  // with no request in flight, nobody is blamed
        let served = send(&calls)
        #expect(calls.violation("bad magic")?.error.message.contains("broke the protocol (bad magic)") == true)
        #expect(calls.violation("bad magic")?.culprit == served.id)  // the one call in flight fails with the reason
        _ = send(&calls)
        #expect(calls.violation("bad magic")?.culprit == nil)  // with two, the child may have been serving either
    }
}

extension RunnerCalls.Kill: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.plugin === rhs.plugin && lhs.error == rhs.error && lhs.culprit == rhs.culprit
    }
}

/// The runner's one retry policy, case by case.
@Suite("The runner's retry policy")
struct RunnerRetryTests {
    static let crashed = GraftError(.pluginCrashed, "crashed"), timedOut = GraftError(.pluginTimeout, "hung")
    static let restarted = GraftError(.pluginRestarted, "restarted"), refused = GraftError(.renderFailed, "no")

    @Test("a request is sent again on a new child only when its death was likely another's; about an instance, the instance is re-created")
    func requests() {
        func after(_ error: GraftError, attempt: Int = 0, posted: Bool = false, unsent: Bool = false, newChild: Bool = true, instance: Bool = false) -> RunnerRetry {
            RunnerRetry.after(error, attempt: attempt, in: .request(posted: posted, unsent: unsent, newChild: newChild, aboutInstance: instance))
        }
        #expect(after(Self.crashed) == .none)  // its own death
        #expect(after(Self.crashed, posted: true) == .resend)
        #expect(after(Self.timedOut, unsent: true) == .resend)
        #expect(after(Self.restarted) == .resend)  // stopped for another call
        #expect(after(Self.crashed, posted: true, instance: true) == .recreate)
        #expect(after(Self.crashed, posted: true, newChild: false) == .none)  // the same child serves on
        #expect(after(Self.refused, posted: true) == .none)  // the plugin's answer, not a death
        #expect(after(Self.crashed, attempt: 1, posted: true) == .none)  // never a third time
    }

    @Test("an instance's call re-creates it once when its child restarted; a create with a render ahead is made again alone")
    func instances() {
        #expect(RunnerRetry.after(Self.restarted, attempt: 0, in: .instanceCall) == .recreate)
        #expect(RunnerRetry.after(Self.restarted, attempt: 1, in: .instanceCall) == .none)
        #expect(RunnerRetry.after(Self.crashed, attempt: 0, in: .instanceCall) == .none)
        for death in [Self.crashed, Self.timedOut, GraftError(.pluginMemoryLimit, "full")] {
            #expect(RunnerRetry.after(death, attempt: 0, in: .createWithRender) == .createAlone)
        }
        #expect(RunnerRetry.after(Self.refused, attempt: 0, in: .createWithRender) == .none)
    }
}
