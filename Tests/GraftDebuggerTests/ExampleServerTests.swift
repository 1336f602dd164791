import Foundation
import FoundationNetworking
import GraftDebugger
import GraftHost
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `graft-example-server` as its README runs it: it renders the
/// checkout flow's screens with the first-party plugins, isolated, per
/// request; its debug endpoint answers; SIGTERM stops it with no child left.
@Suite("Example server", .serialized, .timeLimit(.minutes(10)))
struct ExampleServerTests {
    final class ServerProcess {
        let process = Process()
        let output: URL
        let socketPath: String
        private(set) var port = 0

        init(folder: URL, socketPath: String) throws {
            self.socketPath = socketPath
            output = folder.appendingPathComponent("server.out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = try BuildProducts.product("graft-example-server")
            process.arguments = [
                "--port", "0", "--debug-socket", socketPath, "--only-plugin-path",
                "--plugin-path", try BuildProducts.plugin("DatePicker").path, "--plugin-path", try BuildProducts.plugin("Checkout").path,
                "--flow", repositoryFile("Examples/flows/checkout.json").path,
            ]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Its one line on standard output: "listening on http://HOST:PORT debug SOCKET".
            guard eventually(timeout: .seconds(30), { Self.port(in: log) != nil || !process.isRunning }), let port = Self.port(in: log) else {
                stop()
                throw Fixtures.BuildError(description: "graft-example-server did not start:\n\(log)")
            }
            self.port = port
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        static func port(in log: String) -> Int? {
            guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                let address = line.split(separator: " ").dropFirst(2).first, let port = address.split(separator: ":").last
            else { return nil }
            return Int(port)
        }

        func get(_ path: String, body: String? = nil) throws -> (status: Int, text: String) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            if let body {
                request.httpMethod = "POST"
                request.httpBody = Data(body.utf8)
            }
            let done = DispatchSemaphore(value: 0)
            let result = Locked<(Int, String)?>(nil)
            URLSession.shared.dataTask(with: request) { data, response, _ in
                result.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self)) }
                done.signal()
            }.resume()
            guard done.wait(timeout: .now() + 30) == .success, let (status, text) = result.withLock({ $0 }) else {
                throw Fixtures.BuildError(description: "no answer to \(path) within 30 s:\n\(log)")
            }
            return (status, text)
        }

        /// The runner children it started (its own children named graft-child).
        var children: [Int32] {
            let parent = process.processIdentifier
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                    return false
                }
                let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == parent && stat.contains("(graft-child)")
            }
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            if !eventually(timeout: .seconds(10), { !process.isRunning }) {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        deinit { stop() }
    }

    @Test("renders the flow's first screen, a screen reached by events, one component and a validation, per request; SIGTERM leaves no child")
    func servesScreensAndStopsCleanly() throws {
        let folder = try SocketFolder()
        let server = try ServerProcess(folder: folder.url, socketPath: folder.path("debug.sock"))
        defer { server.stop() }
        let first = try server.get("/")
        #expect(first.status == 200)
        #expect(first.text.contains("<main data-screen=\"pick_date\">"), "\(first.text)")
        #expect(first.text.contains("data-component=\"date_picker@2\""))
        #expect(first.text.contains("Delivery date"))
        let events = try String(contentsOf: repositoryFile("Examples/flows/checkout.events.jsonl"), encoding: .utf8)
        let paywall = try server.get("/flow", body: events.split(separator: "\n").prefix(1).joined(separator: "\n"))
        #expect(paywall.status == 200)
        #expect(paywall.text.contains("<main data-screen=\"paywall\">"), "\(paywall.text)")
        #expect(paywall.text.contains("Delivery on 2026-12-24"))
        let component = try server.get("/components/paywall?title=Pro")
        #expect(component.text.contains("<h2 class=\"graft-paywall-title\">Pro</h2>"), "\(component.text)")
        #expect(try server.get("/components/nope").status == 404)
        #expect(try server.get("/validate/iso_date?value=2026-12-24").text == #"{"message":null,"valid":true}"#)
        let bad = try server.get("/flow", body: "not json")
        #expect(bad.status == 400)
        #expect(bad.text.contains("invalid_json") || bad.text.contains("invalid_flow"), "\(bad.text)")
        // Isolated: the plugins run in children of the server; its debug endpoint lists them.
        #expect(!server.children.isEmpty)
        let client = try DebugClient(socketPath: server.socketPath)
        _ = try client.hello()
        let report = try client.request(["request": "plugins"])["report"]
        #expect(report?["plugins"]?.listValue?.compactMap { $0["id"]?.stringValue } == ["dev.graft.checkout", "dev.graft.date-picker"])
        client.close()
        let children = server.children
        server.stop()
        #expect(server.process.terminationStatus == 0, "\(server.log)")
        for child in children { #expect(!FileManager.default.fileExists(atPath: "/proc/\(child)"), "child \(child) outlived the server") }
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))
    }
}
