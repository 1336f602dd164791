import CGraftSystem
import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench server`: the example server (`graft-example-server`) driven
/// over HTTP by 1, 2, 4, 8 and 32 clients at once, each on its own
/// keep-alive connection, asking for the checkout flow's first screen
/// (rendered per request through the first-party plugins): one server with
/// its plugins in process, one with them isolated, and the isolated one again
/// while 1 request in 100 goes to a plugin that hangs (until its call's
/// deadline kills its child) or crashes. The trouble runs isolated only: in
/// process, a crash would take the server down and a hang would hold a
/// thread forever.
///
/// Figures per configuration (medians over rounds, the configurations taking
/// turns within each round): throughput of the screen requests, and their
/// p50 and p99 latency; the trouble requests are not counted.
enum ServerBench {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let clientCounts = [1, 2, 4, 8, 32]

    enum Trouble: String, CaseIterable {
        case none, hang, crash
    }

    struct Configuration: Hashable {
        var isolated: Bool
        var trouble: Trouble
        var clients: Int
        /// Isolated with every frame on the socket (`GRAFT_RUNNER_RING=0`): the ring's baseline.
        var socketOnly = false
        var name: String {
            "\(isolated ? (socketOnly ? "isolated_socket" : "isolated") : "in_process")\(trouble == .none ? "" : "_\(trouble.rawValue)")_\(clients)"
        }
    }

    struct Sample {
        var throughput: Double  // screen requests per second
        var p50: Double  // ms
        var p99: Double  // ms
        var errors: Int
    }

    static func run(folder: URL, rounds: Int, seconds: Double) throws -> BenchPart {
        var part = BenchPart(name: "server")
        guard let executable = CompanionExecutable.find(named: "graft-example-server", variable: "GRAFT_EXAMPLE_SERVER") else {
            part.notes.append("graft-example-server is not beside graft (swift build -c release --product graft-example-server): skipped")
            return part
        }
        guard let flow = exampleFlow() else {
            part.notes.append("Examples/flows/checkout.json not found (run graft bench from the repository): skipped")
            return part
        }
        let beside = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let firstParty = ["libDatePicker.so", "libCheckout.so"].map { beside.appendingPathComponent($0).path }
        guard firstParty.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else {
            part.notes.append("the first-party plugins are not beside graft-example-server: skipped")
            return part
        }
        let root = folder.appendingPathComponent("server")
        let trouble = root.appendingPathComponent("trouble")
        try FileManager.default.createDirectory(at: trouble, withIntermediateDirectories: true)
        _ = try BenchPlugin.build(
            into: trouble, name: "libbench_trouble.so", defines: ["BENCH_ID=\"bench.trouble\"", "BENCH_KEY=\"trouble\"", "BENCH_TROUBLE"])
        try? FileManager.default.removeItem(at: trouble.appendingPathComponent("bench_echo.c"))
        let plugins = firstParty + [trouble.path]

        let inProcess = try Server(executable: executable, plugins: plugins, flow: flow, inProcess: true, folder: root)
        defer { inProcess.stop() }
        let isolated = try Server(executable: executable, plugins: plugins, flow: flow, inProcess: false, folder: root)
        defer { isolated.stop() }
        let socketOnly = try Server(executable: executable, plugins: plugins, flow: flow, inProcess: false, folder: root, ring: false)
        defer { socketOnly.stop() }
        func server(_ configuration: Configuration) -> Server {
            configuration.isolated ? (configuration.socketOnly ? socketOnly : isolated) : inProcess
        }

        var configurations: [Configuration] = []
        for clients in clientCounts {
            configurations.append(Configuration(isolated: false, trouble: .none, clients: clients))
            for trouble in Trouble.allCases { configurations.append(Configuration(isolated: true, trouble: trouble, clients: clients)) }
            configurations.append(Configuration(isolated: true, trouble: .none, clients: clients, socketOnly: true))
        }
        var samples: [Configuration: [Sample]] = [:]
        // One short round first, untimed: the servers' caches, the children's starts.
        for configuration in configurations where configuration.trouble == .none && configuration.clients == 2 {
            _ = try drive(server(configuration), configuration, seconds: 0.3)
        }
        for _ in 0..<rounds {
            for configuration in configurations {
                samples[configuration, default: []].append(try drive(server(configuration), configuration, seconds: seconds))
            }
        }

        func median(_ configuration: Configuration, _ value: (Sample) -> Double) -> Double {
            Stopwatch.median((samples[configuration] ?? []).map(value))
        }
        for configuration in configurations {
            part.figure("\(configuration.name)_requests_per_s", median(configuration) { $0.throughput }, "req/s")
            part.figure("\(configuration.name)_p50_ms", median(configuration) { $0.p50 }, "ms")
            part.figure("\(configuration.name)_p99_ms", median(configuration) { $0.p99 }, "ms")
            let errors = (samples[configuration] ?? []).reduce(0) { $0 + $1.errors }
            if errors > 0 { part.notes.append("\(configuration.name): \(errors) screen requests failed") }
        }
        let plain = { (isolated: Bool, clients: Int) in Configuration(isolated: isolated, trouble: .none, clients: clients) }
        part.ratio(
            "isolated / in process, 8 clients (req/s)",
            median(plain(true, 8)) { $0.throughput } / median(plain(false, 8)) { $0.throughput })
        part.ratio(
            "isolated, 2 clients / 1 (req/s)", median(plain(true, 2)) { $0.throughput } / median(plain(true, 1)) { $0.throughput })
        let socket = { (clients: Int) in Configuration(isolated: true, trouble: .none, clients: clients, socketOnly: true) }
        part.ratio(
            "isolated, socket only / in process, 8 clients (req/s)",
            median(socket(8)) { $0.throughput } / median(plain(false, 8)) { $0.throughput })
        part.ratio(
            "isolated, socket only, 2 clients / 1 (req/s)", median(socket(2)) { $0.throughput } / median(socket(1)) { $0.throughput })
        part.ratio("in process, 2 clients / 1 (req/s)", median(plain(false, 2)) { $0.throughput } / median(plain(false, 1)) { $0.throughput })
        for trouble in [Trouble.hang, .crash] {
            let troubled = Configuration(isolated: true, trouble: trouble, clients: 8)
            part.ratio(
                "isolated, 8 clients, 1 in 100 a \(trouble.rawValue) / none (p99)",
                median(troubled) { $0.p99 } / median(plain(true, 8)) { $0.p99 })
        }
        part.notes.append(
            "each client: one keep-alive connection, GET / (the checkout flow's first screen, date_picker from the Swift DatePicker plugin, rendered as HTML per request) in a loop for \(seconds) s; \(rounds) rounds, the configurations taking turns")
        part.notes.append(
            "trouble: every 100th request of each client goes to GET /components/trouble?text=hang (its child is killed at the server's 1 s call deadline) or …=crash (its child dies; after 3 crashes in a minute the plugin is quarantined and fails at once); those requests are not counted")
        part.notes.append("both servers run at once, on this machine's \(ProcessInfo.processInfo.activeProcessorCount) CPUs with the clients; release builds of graft-example-server")
        return part
    }

    /// `Examples/flows/checkout.json`, from the current folder or above the executable's.
    static func exampleFlow() -> String? {
        var candidates = [FileManager.default.currentDirectoryPath + "/Examples/flows/checkout.json"]
        var folder = URL(fileURLWithPath: SearchPath.executableFolder ?? "/")
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent("Examples/flows/checkout.json").path)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// A running `graft-example-server` on a free port.
    final class Server {
        let pid: pid_t
        let port: UInt16
        let socketFolder: URL

        init(executable: String, plugins: [String], flow: String, inProcess: Bool, folder: URL, ring: Bool = true) throws {
            // A socket's path must fit in 108 bytes: a short folder of its own in /tmp, whatever TMPDIR is.
            let socketFolder = URL(fileURLWithPath: "/tmp/graft-bench-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: socketFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            self.socketFolder = socketFolder
            var arguments = [
                "--port", "0", "--only-plugin-path", "--flow", flow, "--call-timeout", "1",
                "--debug-socket", socketFolder.appendingPathComponent("debug.sock").path,
            ]
            arguments += plugins.flatMap { ["--plugin-path", $0] }
            if inProcess { arguments.append("--in-process") }
            var ends: [Int32] = [-1, -1]
            // Both ends close-on-exec: the spawn puts the write end on the server's stdout, and no other child gets either.
            guard graft_pipe_cloexec(&ends) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
            let started: pid_t
            do {
                var environment = ProcessInfo.processInfo.environment
                environment["GRAFT_RUNNER_RING"] = ring ? "1" : "0"
                started = try BenchProcess.start(executable, arguments, environment: environment, output: ends[1])
            } catch {
                close(ends[0])
                close(ends[1])
                throw error
            }
            close(ends[1])
            defer { close(ends[0]) }
            pid = started
            do {
                port = try Self.announcedPort(ends[0], within: .seconds(60))
            } catch {
                BenchProcess.stop(started, within: .seconds(5))
                try? FileManager.default.removeItem(at: socketFolder)
                throw error
            }
        }

        func stop() {
            BenchProcess.stop(pid, within: .seconds(15))
            try? FileManager.default.removeItem(at: socketFolder)
        }

        /// The port in the "listening on http://HOST:PORT …" line the server prints once it listens.
        private static func announcedPort(_ descriptor: Int32, within timeout: Duration) throws -> UInt16 {
            let deadline = ContinuousClock.now + timeout
            var reader = LineReader(descriptor)
            var seen: [String] = []
            while ContinuousClock.now < deadline {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) > 0 else { continue }
                guard let line = reader.next() else { break }
                if line.hasPrefix("listening on http://"), let address = line.split(separator: " ").dropFirst(2).first,
                    let port = address.split(separator: ":").last.flatMap({ UInt16($0) })
                {
                    return port
                }
                seen.append(line)
            }
            throw Failure(description: "graft-example-server did not say where it listens within \(timeout): \(seen.suffix(5).joined(separator: " | "))")
        }
    }

    /// `configuration.clients` clients on threads of their own, for `seconds`.
    static func drive(_ server: Server, _ configuration: Configuration, seconds: Double) throws -> Sample {
        let results = Locked<[Result<(latencies: [Double], errors: Int), Failure>]>([])
        let done = Condition()
        let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let port = server.port
        for client in 0..<configuration.clients {
            startThread(named: "bench.client") {
                let result = Result { () throws(Failure) in
                    try clientLoop(port: port, trouble: configuration.trouble, offset: client, until: until)
                }
                results.withLock { $0.append(result) }
                done.lock()
                done.signal()
                done.unlock()
            }
        }
        done.lock()
        while results.withLock({ $0.count }) < configuration.clients {
            _ = done.wait(forSeconds: 1)
        }
        done.unlock()
        var latencies: [Double] = []
        var errors = 0
        for result in results.withLock({ $0 }) {
            let (some, failed) = try result.get()
            latencies += some
            errors += failed
        }
        return Sample(
            throughput: Double(latencies.count) / seconds, p50: Stopwatch.median(latencies), p99: Stopwatch.percentile(latencies, 99),
            errors: errors)
    }

    /// One client: a keep-alive connection, requests until `until`; the
    /// screen requests' latencies (ms) and how many of them failed.
    static func clientLoop(port: UInt16, trouble: Trouble, offset: Int, until: ContinuousClock.Instant) throws(Failure) -> (
        latencies: [Double], errors: Int
    ) {
        var connection = try Connection(port: port)
        var latencies: [Double] = []
        var errors = 0
        var count = offset * 37  // clients reach their trouble requests at different times
        while ContinuousClock.now < until {
            count += 1
            let troubled = trouble != .none && count % 100 == 0
            let path = troubled ? "/components/trouble?text=\(trouble.rawValue)" : "/"
            let start = ContinuousClock.now
            let status: Int
            do throws(Failure) {
                status = try connection.get(path)
            } catch {
                // The server closed the connection (it does after an error it cannot answer): a new one.
                connection = try Connection(port: port)
                if !troubled { errors += 1 }
                continue
            }
            if troubled { continue }
            if status == 200 {
                latencies.append(Double((ContinuousClock.now - start) / .nanoseconds(1)) / 1e6)
            } else {
                errors += 1
            }
        }
        return (latencies, errors)
    }

    /// A minimal HTTP/1.1 client: GET on one keep-alive connection, the
    /// answer read to its Content-Length.
    struct Connection: ~Copyable {
        let socket: Int32
        private var buffer: [UInt8] = []

        init(port: UInt16) throws(Failure) {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                let reason = String(cString: strerror(errno))
                close(socket)
                throw Failure(description: "connect to port \(port): \(reason)")
            }
            var one: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        deinit { close(socket) }

        /// Sends GET `path` and reads the whole answer; its status.
        mutating func get(_ path: String) throws(Failure) -> Int {
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw Failure(description: "send: \(String(cString: strerror(errno)))")
            }
            // The head, up to the blank line.
            var headEnd: Int?
            while headEnd == nil {
                if let end = Self.find([13, 10, 13, 10], in: buffer) {
                    headEnd = end
                } else {
                    try fill()
                }
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
                throw Failure(description: "not an HTTP answer: \(head.prefix(80))")
            }
            let length =
                lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingSpaces)
                }.first ?? 0
            let total = headEnd! + 4 + length
            while buffer.count < total { try fill() }
            buffer.removeFirst(total)
            return status
        }

        private mutating func fill() throws(Failure) {
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "the server closed the connection") }
            buffer += chunk[0..<count]
        }

        private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
            guard bytes.count >= pattern.count else { return nil }
            for index in 0...(bytes.count - pattern.count) where bytes[index] == pattern[0] {
                if Array(bytes[index..<index + pattern.count]) == pattern { return index }
            }
            return nil
        }
    }
}
