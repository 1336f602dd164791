import Dispatch
import Foundation
import GraftFlows
import GraftHost
import GraftTestSupport
import Synchronization
import Testing

@testable import GraftDebugger

/// An event record as a host instance would produce it.
func eventRecord(
    plugin: String = "dev.test.plugin", component: String = "widget@1", instance: String = "w1", event: String = "tapped",
    payload: GraftValue? = ["n": 1]
) -> ActionLogRecord {
    ActionLogRecord(
        pluginID: plugin, component: try? ComponentReference(parsing: component), instance: instance, event: event,
        detail: .event(payload: payload, origin: .component, wiredActions: nil))
}

@Suite("Action log")
struct ActionLogTests {
    @Test("is bounded: the newest records stay, in order, with increasing sequence numbers")
    func bounded() {
        let log = ActionLog(capacity: 5)
        for index in 1...12 { log.record(eventRecord(payload: ["n": .number(Double(index))])) }
        let records = log.records()
        #expect(log.count == 5)
        #expect(log.lastSequence == 12)
        #expect(records.map(\.sequence) == [8, 9, 10, 11, 12])
        #expect(records.map { $0.detail } == (8...12).map { .event(payload: ["n": .number(Double($0))], origin: .component, wiredActions: nil) })
        #expect(log.records(last: 2).map(\.sequence) == [11, 12])
        #expect(log.records(last: 0).isEmpty)
    }

    @Test("filters by plugin, component (key or key@version), instance and event; last N counts matches")
    func filters() {
        let log = ActionLog(capacity: 100)
        log.record(eventRecord(plugin: "a", component: "picker@1", instance: "p1", event: "picked"))
        log.record(eventRecord(plugin: "a", component: "picker@2", instance: "p2", event: "picked"))
        log.record(eventRecord(plugin: "b", component: "wall@1", instance: "w", event: "purchase"))
        log.record(eventRecord(plugin: "a", component: "picker@2", instance: "p2", event: "cleared"))
        log.record(ActionLogRecord(detail: .swap(LoggedSwap(path: "/x.so", outcome: "swapped", summary: "swapped"))))

        #expect(log.records(matching: ActionLogFilter(pluginID: "a")).map(\.sequence) == [1, 2, 4])
        #expect(log.records(matching: ActionLogFilter(component: "picker")).map(\.sequence) == [1, 2, 4])
        #expect(log.records(matching: ActionLogFilter(component: "picker@2")).map(\.sequence) == [2, 4])
        #expect(log.records(matching: ActionLogFilter(instance: "p2", event: "picked")).map(\.sequence) == [2])
        #expect(log.records(matching: ActionLogFilter(event: "purchase")).map(\.pluginID) == ["b"])
        #expect(log.records(matching: ActionLogFilter(pluginID: "a"), last: 2).map(\.sequence) == [2, 4])
        #expect(log.records(matching: ActionLogFilter(pluginID: "nobody")).isEmpty)
        #expect(log.records(matching: ActionLogFilter(instance: "p1")).allSatisfy { $0.kind == .event }, "the swap has no instance")
    }

    @Test("exports JSON lines that read back as the same records")
    func jsonLines() throws {
        let log = ActionLog(capacity: 10)
        log.record(eventRecord(payload: ["date": "2026-12-24", "n": 2]))
        var action = ActionLogRecord(
            pluginID: "dev.test.plugin", component: ComponentReference(key: "widget"), instance: "w1", event: "tapped",
            warnings: [GraftWarning(.actionFailed, "it failed", instanceID: "w1")],
            detail: .action(LoggedAction(
                name: "format_currency", params: ["amount": 9.5], ok: false, error: "no currency", wallTime: .microseconds(120),
                cpuTime: .microseconds(45))))
        action.screen = "paywall"
        log.record(action)
        log.record(ActionLogRecord(
            instance: "w1", event: "tapped",
            detail: .validation(LoggedValidation(validator: "luhn", value: "4242", params: [], isValid: false, message: "bad"))))

        let text = log.jsonLines()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(text.hasSuffix("\n"))
        let first = try GraftValue(json: lines[0])
        #expect(first["type"] == "event")
        #expect(first["plugin"] == "dev.test.plugin")
        #expect(first["component"] == "widget@1")
        #expect(first["instance"] == "w1")
        #expect(first["event"] == "tapped")
        #expect(first["payload"] == ["date": "2026-12-24", "n": 2])
        #expect(first["seq"] == 1)
        #expect(first["time"]?.stringValue?.hasSuffix("Z") == true)
        let second = try GraftValue(json: lines[1])
        #expect(second["action"]?["error"] == "no currency")
        #expect(second["action"]?["wallMicroseconds"] == 120 && second["action"]?["cpuMicroseconds"] == 45, "the call's wall and CPU time")
        #expect(action.text.contains("(120 µs, CPU 45 µs)"), "\(action.text)")
        #expect(second["warnings"]?.listValue?.first?["code"] == "action_failed")

        let roundTrip = try lines.map { try ActionLogRecord(json: GraftValue(json: $0)) }
        let original = log.records()
        #expect(roundTrip.map(\.sequence) == original.map(\.sequence))
        #expect(roundTrip.map(\.detail) == original.map(\.detail))
        #expect(roundTrip.map(\.warnings) == original.map(\.warnings))
        #expect(roundTrip.map(\.screen) == original.map(\.screen))
        #expect(roundTrip.map(\.component) == original.map(\.component))
        for (read, written) in zip(roundTrip, original) {
            #expect(abs(read.time.timeIntervalSince(written.time)) < 0.001, "times keep millisecond precision")
        }
        #expect(log.jsonLines(matching: ActionLogFilter(event: "nope")).isEmpty)
    }

    @Test("a record that is not one is refused with the field named")
    func badRecord() {
        #expect(throws: GraftError.self) { try ActionLogRecord(json: ["type": "teleport"]) }
        do {
            _ = try ActionLogRecord(json: ["type": "action", "action": ["name": 3, "ok": true]])
            Issue.record("a numeric action name was accepted")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.message.contains("\"name\""))
        }
    }

    @Test("many threads recording at once lose nothing and repeat no sequence number")
    func concurrentRecording() {
        let log = ActionLog(capacity: 10_000)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 { log.record(eventRecord(instance: "t\(thread)", payload: ["i": .number(Double(index))])) }
        }
        let records = log.records()
        #expect(records.count == 4_000)
        #expect(records.map(\.sequence) == Array(1...4_000))
        for thread in 0..<8 {
            let mine = log.records(matching: ActionLogFilter(instance: "t\(thread)"))
            #expect(mine.map { $0.detail } == (0..<500).map { .event(payload: ["i": .number(Double($0))], origin: .component, wiredActions: nil) }, "each thread's records keep their order")
        }
    }

    @Test("a follower gets the replay, then every new matching record in order")
    func follow() {
        let log = ActionLog(capacity: 100)
        log.record(eventRecord(instance: "a", event: "old"))
        log.record(eventRecord(instance: "b", event: "old"))
        let received = Mutex<[ActionLogRecord]>([])
        let follower = log.follow(matching: ActionLogFilter(instance: "a"), replaying: 5, on: DispatchQueue(label: "test.follow")) { records, _ in
            received.withLock { $0 += records }
        }
        defer { follower.cancel() }
        for index in 0..<50 { log.record(eventRecord(instance: index % 2 == 0 ? "a" : "b", event: "e\(index)")) }
        #expect(eventually { received.withLock { $0.count } == 26 })
        let events = received.withLock { $0.map { $0.event ?? "" } }
        #expect(events == ["old"] + stride(from: 0, to: 50, by: 2).map { "e\($0)" })

        follower.cancel()
        log.record(eventRecord(instance: "a", event: "after"))
        Thread.sleep(forTimeInterval: 0.05)
        #expect(received.withLock { $0.last?.event } == "e48", "nothing arrives after cancel")
    }

    @Test("a follower that falls behind the ring is told how many records it missed")
    func followerSkips() {
        let log = ActionLog(capacity: 10)
        let queue = DispatchQueue(label: "test.slow")
        let received = Mutex<(records: [UInt64], skipped: UInt64)>(([], 0))
        let follower = log.follow(on: queue) { records, skipped in
            received.withLock { state in
                state.records += records.map(\.sequence)
                state.skipped += skipped
            }
        }
        defer { follower.cancel() }
        // Hold the follower's queue while 25 records go by a ring of 10.
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        for _ in 0..<25 { log.record(eventRecord()) }
        release.signal()
        #expect(eventually { received.withLock { $0.records.last } == 25 })
        let (records, skipped) = received.withLock { ($0.records, $0.skipped) }
        #expect(records == Array(16...25))
        #expect(skipped == 15)
    }
}

@Suite("Action log: the sandbox")
struct ActionLogSandboxTests {
    @Test("an act the sandbox refuses a plugin is a warning record naming the plugin, as it happens")
    func sandboxDenials() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("hostile", into: folder)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil),
            logger: quietLogger)
        host.loadPlugins()
        let log = ActionLog(capacity: 100)
        log.recordSandboxDenials(of: host)
        let probe = try host.makeInstance(of: ComponentReference(key: "probe"), inputs: ["act": "kill_parent", "target": ""])
        #expect(try probe.render().text == "kill_parent: refused EPERM")
        let records = log.records(matching: ActionLogFilter(pluginID: "test.hostile"))
        #expect(records.map(\.kind) == [.warning])
        #expect(records.first?.warnings.map(\.code) == [.sandboxDenied])
        #expect(records.first?.warnings.first?.message.contains("send signal 9 to process \(getpid())") == true)
    }
}
