import Foundation
import GraftDebugger
import GraftFlows
import GraftHost
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The debug endpoint of a host running in the test process, reached
/// through its socket as `graft debug attach` reaches it. Every read has a
/// deadline, so a broken endpoint fails a test instead of hanging it.
@Suite("Debug endpoint", .serialized, .timeLimit(.minutes(10)))
struct DebugEndpointTests {
    /// A host with the first-party plugins, its log, and the checkout flow.
    struct Running {
        let host: GraftHost
        let log: ActionLog
        let endpoint: DebugEndpoint
        let flow: FlowWiring

        init(at path: String, logCapacity: Int = 1_000, limits: DebugEndpoint.Limits = .init()) throws {
            host = try firstPartyHost()
            log = ActionLog(capacity: logCapacity)
            flow = try checkoutWiring()
            endpoint = try DebugEndpoint.open(host: host, socketPath: path, log: log, flow: flow, limits: limits)
        }

        /// A runner whose transcript feeds the log, as a host app wires it.
        func runner() -> FlowRunner {
            FlowRunner(host: host, flow: flow.document, observer: FlowLogFeed(log: log, host: host))
        }

        /// Raw clients in every slot, once the endpoint has taken them all.
        func takeEverySlot() throws -> [RawSocket] {
            let clients = try (0..<DebugProtocol.maximumClients).map { _ in try RawSocket(path: endpoint.socketPath) }
            #expect(eventually { endpoint.clientCount == DebugProtocol.maximumClients })
            return clients
        }

        func client() throws -> DebugClient {
            let client = try DebugClient(socketPath: endpoint.socketPath)
            try client.hello()
            return client
        }
    }

    @Test("hello first: the answer names the protocol and version; other requests before it are refused")
    func handshake() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let raw = try RawSocket(path: running.endpoint.socketPath)
        raw.send(line: #"{"request": "plugins", "id": 7}"#)
        let refused = try GraftValue(json: try #require(raw.readLine()))
        #expect(refused["response"] == "error")
        #expect(refused["error"]?["code"] == "handshake_required")
        #expect(refused["id"] == 7)
        raw.send(line: #"{"request": "hello", "version": 1}"#)
        let hello = try GraftValue(json: try #require(raw.readLine()))
        #expect(hello["response"] == "hello")
        #expect(hello["protocol"] == "graft-debug")
        #expect(hello["version"] == 1)
        #expect(hello["pid"] == .number(Double(getpid())))
        #expect(hello["flowInstances"] == ["delivery", "offer", "reschedule"])

        let future = try RawSocket(path: running.endpoint.socketPath)
        future.send(line: #"{"request": "hello", "version": 2}"#)
        let unsupported = try GraftValue(json: try #require(future.readLine()))
        #expect(unsupported["error"]?["code"] == "unsupported_version")
        #expect(future.isClosedByHost())
    }

    @Test("plugins: the same report as the host's own")
    func plugins() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let client = try running.client()
        let answer = try client.request(["request": "plugins", "id": "p"])
        #expect(answer["response"] == "plugins")
        #expect(answer["id"] == "p")
        #expect(answer["report"] == PluginReport(host: running.host).json)
    }

    @Test("follow: records stream while events flow, with plugin, instance, event, payload and actions; tail filters")
    func followWhileEventsFlow() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let client = try running.client()
        let following = try client.request(["request": "follow"])
        #expect(following["following"] == true)

        let runner = running.runner()
        try runner.start()
        try runner.send(.interact(instance: "delivery", action: "select", data: ["date": "2026-12-24"]))
        try runner.send(.emit(instance: "offer", event: "purchase", payload: ["title": "Graft Pro", "price": 9.99]))

        var streamed: [ActionLogRecord] = []
        while streamed.count < running.log.records().count {
            let line = try #require(try client.nextStreamed(timeout: .seconds(10)))
            #expect(line["stream"] == "log")
            streamed.append(try ActionLogRecord(json: try #require(line["record"])))
        }
        #expect(streamed.map(\.sequence) == Array(1...UInt64(streamed.count)), "in order, none missing")
        let picked = try #require(streamed.first)
        #expect(picked.kind == .event)
        #expect(picked.pluginID == "dev.graft.date-picker")
        #expect(picked.component?.description == "date_picker@2")
        #expect(picked.instance == "delivery")
        #expect(picked.event == "date_selected")
        #expect(picked.detail == .event(payload: ["date": "2026-12-24", "timestamp": 1_798_070_400], origin: .component, wiredActions: 3))
        let actions = streamed.compactMap { record -> String? in
            if case .action(let action) = record.detail { return "\(record.instance ?? "?").\(action.name)" } else { return nil }
        }
        #expect(actions == [
            "delivery.set_variable", "delivery.track", "delivery.go_to",
            "offer.validate", "offer.set_variable", "offer.format_currency", "offer.track", "offer.go_to",
        ])

        let tail = try client.request(["request": "tail", "last": 2, "filter": ["instance": "offer"]])
        let records = try (tail["records"]?.listValue ?? []).map { try ActionLogRecord(json: $0) }
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0.instance == "offer" })
        #expect(records.last?.detail == .action(LoggedAction(name: "go_to", params: ["screen": "confirmation"], ok: true)))
    }

    @Test("two clients at once both follow, and one's garbage does not disturb the other")
    func twoClients() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let first = try running.client()
        let second = try running.client()
        _ = try first.request(["request": "follow", "filter": ["event": "purchase"]])
        _ = try second.request(["request": "follow"])
        try second.send(line: "this is not json")
        #expect(throws: GraftError.self) { try second.nextStreamed(timeout: .seconds(10)) }

        let runner = running.runner()
        try runner.start()
        try runner.send(.interact(instance: "delivery", action: "select", data: ["date": "2026-12-24"]))
        try runner.send(.emit(instance: "offer", event: "purchase", payload: ["title": "Graft Pro", "price": 9.99]))

        let firstLine = try #require(try first.nextStreamed(timeout: .seconds(10)))
        #expect(firstLine["record"]?["event"] == "purchase", "the filter skipped the date records")
        #expect(firstLine["record"]?["instance"] == "offer")
        let secondLine = try #require(try second.nextStreamed(timeout: .seconds(10)))
        #expect(secondLine["record"]?["event"] == "date_selected", "the unfiltered client starts at the first record")
        #expect(running.endpoint.clientCount == 2)
    }

    @Test("garbage gets an error answer and the connection carries on", arguments: [
        ("not json at all", "invalid_json"),
        (#"[1, 2, 3]"#, "bad_request"),
        (#"{"no": "request"}"#, "bad_request"),
        (#"{"request": "teleport"}"#, "unknown_request"),
        (#"{"request": "tail", "last": -3}"#, "bad_request"),
        (#"{"request": "tail", "filter": {"colour": "red"}}"#, "bad_request"),
        (#"{"request": "try", "component": "no_such_widget"}"#, "custom_component_not_found"),
        (#"{"request": "try", "component": "paywall", "interact": [{"action": "teleport"}]}"#, "unknown_interaction"),
        ("(200 000 nested lists)", "invalid_json"),
    ])
    func garbage(line sample: String, code: String) throws {
        // A line nested far deeper than any request, to show the parser gives up cleanly.
        let line = sample == "(200 000 nested lists)" ? String(repeating: "[", count: 200_000) : sample
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let raw = try RawSocket(path: running.endpoint.socketPath)
        raw.send(line: #"{"request": "hello", "version": 1}"#)
        _ = raw.readLine()
        raw.send(line: line)
        let answer = try GraftValue(json: try #require(raw.readLine(), "no answer to \(line.prefix(60))"))
        #expect(answer["response"] == "error")
        #expect(answer["error"]?["code"] == .string(code))
        raw.send(line: #"{"request": "tail", "last": 1}"#)
        let next = try GraftValue(json: try #require(raw.readLine()))
        #expect(next["response"] == "tail", "the same connection still answers")
    }

    @Test("a 10 MiB line drops the client; the host keeps serving others")
    func oversizedLine() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let bystander = try running.client()
        let raw = try RawSocket(path: running.endpoint.socketPath)
        let tenMiB = [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20)
        let sentEverything = raw.send(tenMiB + [0x0A])
        #expect(!sentEverything, "the host stopped reading well before 10 MiB")
        #expect(raw.isClosedByHost())
        #expect(eventually { running.endpoint.clientCount == 1 })
        #expect(try bystander.request(["request": "plugins"])["response"] == "plugins")
        #expect(try running.client().request(["request": "tail"])["response"] == "tail")
    }

    @Test("a follower that stops reading is dropped before it costs the host more than 8 MiB")
    func stalledFollower() throws {
        let folder = try SocketFolder()
        // A ring large enough that every record reaches the follower's connection.
        let running = try Running(at: folder.path("d.sock"), logCapacity: 20_000)
        defer { running.endpoint.close() }
        let stalled = try RawSocket(path: running.endpoint.socketPath)
        stalled.send(line: #"{"request": "hello", "version": 1}"#)
        stalled.send(line: #"{"request": "follow"}"#)
        #expect(eventually { running.endpoint.clientCount == 1 })
        // Its two answers read, it reads no more: the follow is in force.
        #expect(try GraftValue(json: try #require(stalled.readLine()))["response"] == "hello")
        #expect(try GraftValue(json: try #require(stalled.readLine()))["response"] == "follow")
        let bulky = GraftValue.string(String(repeating: "x", count: 1024))
        for index in 0..<12_000 {
            running.log.record(eventRecord(instance: "bulk", payload: ["i": .number(Double(index)), "text": bulky]))
            if index % 1000 == 999, running.endpoint.clientCount == 0 { break }
        }
        #expect(eventually { running.endpoint.clientCount == 0 }, "the stalled follower was dropped")
        #expect(try running.client().request(["request": "tail", "last": 1])["records"]?.listValue?.count == 1)
    }

    @Test("the endpoint's sockets are close-on-exec: a process the host spawns inherits none")
    func socketsCloseOnExec() throws {
        // Only the sockets made from here on (the test runner holds some of
        // its own), told apart by inode: descriptor numbers are reused as
        // tests running meanwhile close and open theirs.
        let before = Set(Self.sockets().values)
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("c.sock"))
        defer { running.endpoint.close() }
        let client = try running.client()
        _ = try client.request(["request": "plugins"])
        #expect(eventually { running.endpoint.clientCount == 1 })
        // The endpoint's own: the listener and the accepted client, which the
        // kernel lists under the socket's path (tests running meanwhile make
        // sockets of their own, Foundation's Process among them, that are not
        // the endpoint's to mark).
        let endpoints = Self.unixSocketInodes(atPath: folder.path("c.sock"))
        let made = Self.sockets().filter { !before.contains($0.value) && endpoints.contains($0.value) }
        #expect(made.count >= 2)
        for descriptor in made.keys {
            let flags = fcntl(descriptor, F_GETFD)
            guard flags >= 0 else { continue }  // closed meanwhile
            #expect(flags & FD_CLOEXEC != 0, "socket descriptor \(descriptor) would be inherited by child processes")
        }
    }

    /// `socket:[inode]` of every Unix socket bound or accepted at `path` (from /proc/net/unix).
    static func unixSocketInodes(atPath path: String) -> Set<String> {
        let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
        var inodes: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 8, fields[7] == path { inodes.insert("socket:[\(fields[6])]") }
        }
        return inodes
    }

    /// This process's descriptors that are sockets, with their `socket:[inode]`.
    static func sockets() -> [Int32: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var sockets: [Int32: String] = [:]
        for name in names {
            guard let descriptor = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target.hasPrefix("socket:")
            else { continue }
            sockets[descriptor] = target
        }
        return sockets
    }

    @Test("a client that leaves is forgotten; so is one that leaves mid-line")
    func disconnects() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        do {
            let client = try running.client()
            _ = try client.request(["request": "follow"])
            let raw = try RawSocket(path: running.endpoint.socketPath)
            raw.send(Array(#"{"request": "plu"#.utf8))
            #expect(eventually { running.endpoint.clientCount == 2 })
        }
        #expect(eventually { running.endpoint.clientCount == 0 })
        running.log.record(ActionLogRecord(detail: .warning))  // nobody to wake
        #expect(try running.client().request(["request": "tail"])["records"]?.listValue?.count == 1)
    }

    @Test("try runs the host's sandbox, with the host flow's wiring")
    func sandbox() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let client = try running.client()
        let answer = try client.request([
            "request": "try", "component": "paywall", "instance": "offer",
            "emit": [["event": "dismiss", "payload": ["reason": "later"]]],
        ])
        let result = try DryRunResult(json: try #require(answer["result"]))
        #expect(result.component == ComponentReference(key: "paywall"))
        #expect(result.rendering.text.contains("Graft Pro"))
        let wouldRun = result.records.compactMap { record -> String? in
            if case .wouldRun(let action, _, _) = record.entry { return action } else { return nil }
        }
        #expect(wouldRun == ["track", "close"])
        #expect(running.host.openInstanceCount == 0, "the sandbox instance is closed")
        #expect(running.log.records().isEmpty, "nothing the sandbox did reached the real log")
    }

    @Test("the socket is mode 0600; close disconnects clients and removes it")
    func permissionsAndClose() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        var status = stat()
        #expect(lstat(running.endpoint.socketPath, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o600)
        let raw = try RawSocket(path: running.endpoint.socketPath)
        raw.send(line: #"{"request": "hello", "version": 1}"#)
        #expect(raw.readLine() != nil)
        running.endpoint.close()
        #expect(raw.isClosedByHost())
        #expect(!FileManager.default.fileExists(atPath: running.endpoint.socketPath))
        running.endpoint.close()  // twice is harmless
    }

    @Test("a regular file at the socket path is refused and left as it was")
    func refusesRegularFile() throws {
        let folder = try SocketFolder()
        let path = folder.path("d.sock")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Running(at: path)
            Issue.record("the endpoint opened over a regular file")
        } catch let error as GraftError {
            #expect(error.code == .endpointUnavailable)
            #expect(error.message.contains("not a socket"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test("a socket another host listens on is refused; that host keeps working")
    func refusesLiveSocket() throws {
        let folder = try SocketFolder()
        let path = folder.path("d.sock")
        let first = try Running(at: path)
        defer { first.endpoint.close() }
        do {
            _ = try Running(at: path)
            Issue.record("a second endpoint took over a live socket")
        } catch let error as GraftError {
            #expect(error.code == .endpointUnavailable)
            #expect(error.message.contains("listening"))
        }
        #expect(try first.client().request(["request": "tail"])["response"] == "tail")
    }

    @Test("a stale socket (nobody listening) is replaced")
    func replacesStaleSocket() throws {
        let folder = try SocketFolder()
        let path = folder.path("d.sock")
        // A socket file whose process is gone: bound, then closed without unlinking.
        let leftover = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(leftover, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(leftover)
        #expect(FileManager.default.fileExists(atPath: path))

        let running = try Running(at: path)
        defer { running.endpoint.close() }
        #expect(try running.client().request(["request": "tail"])["response"] == "tail")
    }

    @Test("folders others can write to, missing folders and over-long paths are refused")
    func refusedPlaces() throws {
        let folder = try SocketFolder()
        #expect(chmod(folder.url.path, 0o777) == 0)
        do {
            _ = try Running(at: folder.path("d.sock"))
            Issue.record("opened in a world-writable folder")
        } catch let error as GraftError {
            #expect(error.code == .endpointUnavailable)
        }
        #expect(throws: GraftError.self) { try Running(at: "/tmp/graft-debug-\(UUID().uuidString).sock") }
        #expect(throws: GraftError.self) { try Running(at: folder.path("missing/d.sock")) }
        #expect(chmod(folder.url.path, 0o700) == 0)
        do {
            _ = try Running(at: folder.path(String(repeating: "s", count: 120)))
            Issue.record("opened at a path the kernel cannot take")
        } catch let error as GraftError {
            #expect(error.code == .endpointUnavailable)
        }
    }

    @Test("past the client limit, a newcomer is told why and closed")
    func tooManyClients() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        var clients = try running.takeEverySlot()
        let late = try RawSocket(path: running.endpoint.socketPath)
        let answer = try GraftValue(json: try #require(late.readLine()))
        #expect(answer["error"]?["code"] == "too_many_clients")
        #expect(late.isClosedByHost())
        clients.removeAll()
        #expect(eventually { running.endpoint.clientCount == 0 })
        #expect(try running.client().request(["request": "tail"])["response"] == "tail")
    }

    /// Resident memory of this process, in bytes.
    static func residentBytes() -> Int {
        let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    @Test("idle clients and half-written lines give their slots back: idle_timeout, line_timeout, then closed")
    func idleAndUnfinishedClientsAreClosed() throws {
        let folder = try SocketFolder()
        let limits = DebugEndpoint.Limits(idle: .milliseconds(400), line: .milliseconds(400))
        let running = try Running(at: folder.path("d.sock"), limits: limits)
        defer { running.endpoint.close() }
        // Every slot taken: half by clients that say nothing, half by ones that stop mid-line.
        var idle: [RawSocket] = [], unfinished: [RawSocket] = []
        for index in 0..<DebugProtocol.maximumClients {
            let raw = try RawSocket(path: running.endpoint.socketPath)
            if index.isMultiple(of: 2) {
                idle.append(raw)
            } else {
                raw.send(line: #"{"request": "hello", "version": 1}"#)
                raw.send(Array(#"{"request": "plu"#.utf8))
                unfinished.append(raw)
            }
        }
        #expect(eventually { running.endpoint.clientCount == DebugProtocol.maximumClients })
        for raw in idle {
            let reason = try GraftValue(json: try #require(raw.readLine()))
            #expect(reason["error"]?["code"] == "idle_timeout")
            #expect(raw.isClosedByHost())
        }
        for raw in unfinished {
            #expect(try GraftValue(json: try #require(raw.readLine()))["response"] == "hello")
            let reason = try GraftValue(json: try #require(raw.readLine()))
            #expect(reason["error"]?["code"] == "line_timeout")
            #expect(raw.isClosedByHost())
        }
        #expect(eventually { running.endpoint.clientCount == 0 })
        // A client that keeps asking is never idle: it asks until a silent
        // client, connected just after it, is closed for idling, and stays.
        let busy = try running.client()
        let silent = try RawSocket(path: running.endpoint.socketPath)
        let deadline = ContinuousClock.now + .seconds(10)
        var asked = 0
        while !silent.hasInput(within: .milliseconds(50)), ContinuousClock.now < deadline {
            #expect(try busy.request(["request": "plugins"])["response"] == "plugins")
            asked += 1
        }
        #expect(try GraftValue(json: try #require(silent.readLine()))["error"]?["code"] == "idle_timeout")
        #expect(asked >= 2, "the busy client asked across the idle limit (\(asked) requests)")
        #expect(try busy.request(["request": "plugins"])["response"] == "plugins")
        idle.removeAll()
        unfinished.removeAll()
        // The endpoint's own sockets (its listener and the busy client's connection), not the ones tests
        // running beside this one open meanwhile.
        func endpointSockets() -> Int {
            let inodes = Self.unixSocketInodes(atPath: running.endpoint.socketPath)
            return Self.sockets().values.filter { inodes.contains($0) }.count
        }
        #expect(eventually { endpointSockets() <= 2 }, "the dropped clients' sockets are closed: \(endpointSockets()) left")
    }

    @Test("seventy clients that leave mid-line free every slot")
    func manyLeaveMidLine() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        for _ in 0..<70 {
            let raw = try RawSocket(path: running.endpoint.socketPath)
            raw.send(Array(#"{"request": "hel"#.utf8))
        }
        // Departed clients may still wait in the listen backlog (a count of 0
        // can come before the host has accepted them all): a new client is
        // served once the host has taken and freed every one of them.
        #expect(eventually { (try? running.client().request(["request": "plugins"]))?["response"] == "plugins" })
        #expect(eventually { running.endpoint.clientCount == 0 })
    }

    @Test("a client that pipelines requests and reads nothing is dropped with output_overflow; the host's memory stays bounded")
    func unreadPipelinedAnswers() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        let before = Self.residentBytes()
        // A send waits while the host is slow to read, which on a busy machine can be seconds: with a 2 s limit
        // the loop once ended early in a full CI run (1,275 requests), before the answers could pile past the
        // limit, and the client was never dropped. The host only stops reading a client by dropping it, so a
        // long limit ends the loop early only if that is broken, and the expectations below then fail.
        let greedy = try RawSocket(path: running.endpoint.socketPath, timeout: 30)
        greedy.send(line: #"{"request": "hello", "version": 1}"#)
        let request = Array(#"{"request": "plugins"}"#.utf8) + [0x0A]
        var sent = 0
        // Until the host stops taking requests (it dropped this client) or
        // far past what 8 MiB of answers need.
        while sent < 40_000, greedy.send(request) { sent += 1 }
        #expect(eventually { running.endpoint.clientCount == 0 }, "dropped after \(sent) requests")
        #expect(sent < 40_000, "the host stopped reading once the answers piled up")
        #expect(greedy.isClosedByHost())
        // Unbounded, the answers to 40,000 requests held ~100 MB; bounded, a few times 8 MiB at most.
        #expect(Self.residentBytes() - before < 48 << 20, "grew \((Self.residentBytes() - before) >> 20) MiB")
        #expect(try running.client().request(["request": "plugins"])["response"] == "plugins")
    }

    @Test("a client refused for lack of slots gets too_many_clients as its own code, every time; a missing socket is endpoint_unavailable")
    func refusalsAreTheirOwnCodes() throws {
        let folder = try SocketFolder()
        let running = try Running(at: folder.path("d.sock"))
        defer { running.endpoint.close() }
        var clients = try running.takeEverySlot()
        for _ in 0..<6 {
            let error = #expect(throws: GraftError.self) { try DebugClient(socketPath: running.endpoint.socketPath).hello() }
            #expect(error?.code == .tooManyClients, "\(error?.description ?? "")")
        }
        clients.removeAll()
        let missing = #expect(throws: GraftError.self) { try DebugClient(socketPath: folder.path("none.sock")) }
        #expect(missing?.code == .endpointUnavailable)
        #expect(missing?.message.contains("none.sock") == true)
    }
}
