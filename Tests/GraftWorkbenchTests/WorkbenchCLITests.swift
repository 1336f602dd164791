import Foundation
import GraftHost
import GraftWebDriver
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `graft workbench` as a person starts it: it prints a URL with a token,
/// serves it, and stops cleanly on SIGTERM or Ctrl-C, leaving no child behind.
extension WorkbenchTests {
    @Suite("Workbench: the graft workbench command", .timeLimit(.minutes(10)))
    struct WorkbenchCLITests {
        /// A running `graft workbench`: its output goes to a file read as it grows.
        final class Server: @unchecked Sendable {
            let process = Process()
            let output: URL

            init(_ arguments: [String], scratch: borrowing Scratch, environment extra: [String: String] = [:]) throws {
                output = scratch.file("stdout")
                _ = FileManager.default.createFile(atPath: output.path, contents: nil)
                _ = FileManager.default.createFile(atPath: scratch.file("stderr").path, contents: nil)
                process.executableURL = try BuildProducts.graft()
                process.arguments = ["workbench"] + arguments
                process.standardOutput = try FileHandle(forWritingTo: output)
                process.standardError = try FileHandle(forWritingTo: scratch.file("stderr"))
                process.standardInput = FileHandle.nullDevice
                // Its registry cache goes into the scratch folder, never ~/.cache.
                var environment = ProcessInfo.processInfo.environment
                environment["XDG_CACHE_HOME"] = scratch.file("cache").path
                environment.merge(extra) { _, given in given }
                process.environment = environment
                try process.run()
            }

            var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

            /// The URL it printed, once it has.
            func url(within timeout: Duration = .seconds(30)) -> String? {
                let deadline = ContinuousClock.now + timeout
                while ContinuousClock.now < deadline, process.isRunning {
                    if let line = printed.split(separator: "\n").first(where: { $0.contains("http://127.0.0.1:") }) {
                        return line.trimmingCharacters(in: .whitespaces)
                    }
                    usleep(20_000)
                }
                return nil
            }

            /// Sends `signal` and waits for the exit (SIGKILL past the deadline); the exit status.
            func stop(with signal: Int32 = SIGTERM, within timeout: Duration = .seconds(15)) -> Int32 {
                guard process.processIdentifier > 0 else { return -1 }  // never started
                if process.isRunning { kill(process.processIdentifier, signal) }
                let deadline = ContinuousClock.now + timeout
                while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                return process.terminationStatus
            }

            deinit { _ = stop(with: SIGKILL, within: .seconds(5)) }
        }

        /// The child processes of `pid` now, from every one of its threads
        /// (/proc lists a child under the thread that spawned it).
        static func children(of pid: Int32) -> [Int32] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.flatMap { task -> [Int32] in
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                return text.split(separator: " ").compactMap { Int32($0) }
            }
        }

        @Test("prints a URL with a token on 127.0.0.1, serves the API with it, refuses without it, stops on SIGTERM")
        func startsAndStops() async throws {
            let scratch = try Scratch()
            let folder = scratch.url.appendingPathComponent("plugins")
            try Fixtures.build("good_widget", into: folder)
            let server = try Server(["--plugin-path", folder.path, "--only-plugin-path"], scratch: scratch)
            let url = try #require(try await offPool { server.url() }, "no URL printed: \(server.printed)")
            let parts = try #require(URLComponents(string: url))
            #expect(parts.host == "127.0.0.1")
            let token = try #require(parts.queryItems?.first { $0.name == "token" }?.value)
            #expect(token.count == 64)
            let port = try #require(parts.port)
            #expect(server.printed.contains("watching \(folder.path)"))

            let report = try await offPool { try HTTPProbe.request(port: port, path: "/api/plugins?token=\(token)") }
            #expect(report.status == 200)
            #expect(report.body.contains("test.widget"))
            let refused = try await offPool { try HTTPProbe.request(port: port, path: "/api/plugins") }
            #expect(refused.status == 401)
            // A session makes the plugin's runner child exist, so stopping must reap it.
            let opened = try await offPool {
                try HTTPProbe.request(port: port, method: "POST", path: "/api/sessions?token=\(token)", body: #"{"component": "widget"}"#)
            }
            #expect(opened.status == 201)
            #expect(!Self.children(of: server.process.processIdentifier).isEmpty, "the widget runs in a child process")

            #expect(try await offPool { server.stop() } == 0)
            let after = try? await offPool { try HTTPProbe.request(port: port, path: "/api/plugins?token=\(token)", timeout: .seconds(2)) }
            #expect(after == nil, "nothing listens after the stop")
        }

        /// `GRAFT_AXE` is read by the process, so this runs a workbench of its own.
        @Test("the Accessibility section's engine missing: axe_unavailable (404) naming the file; installed later, it is served with no restart")
        func axeUnavailable() async throws {
            let scratch = try Scratch()
            let axe = scratch.file("axe.min.js")
            let server = try Server(["--only-plugin-path", "--no-watch"], scratch: scratch, environment: ["GRAFT_AXE": axe.path])
            let url = try #require(try await offPool { server.url() }, "no URL printed: \(server.printed)")
            let parts = try #require(URLComponents(string: url))
            let token = try #require(parts.queryItems?.first { $0.name == "token" }?.value)
            let port = try #require(parts.port)
            let missing = try await offPool { try HTTPProbe.request(port: port, path: "/api/axe?token=\(token)") }
            #expect(missing.status == 404)
            #expect(missing.body.contains("axe_unavailable") && missing.body.contains(axe.path), "\(missing.body)")
            try "window.axe = { version: 'test' };".write(to: axe, atomically: true, encoding: .utf8)
            let served = try await offPool { try HTTPProbe.request(port: port, path: "/api/axe?token=\(token)") }
            #expect(served.status == 200)
            #expect(served.body == "window.axe = { version: 'test' };")
            #expect(try await offPool { server.stop() } == 0)
        }

        @Test("a port already taken: port_unavailable, exit 2; a flow that is not there: invalid_flow, exit 2")
        func refusesBadStart() async throws {
            let scratch = try Scratch()
            let first = try Server(["--only-plugin-path", "--no-watch"], scratch: scratch)
            let url = try #require(try await offPool { first.url() })
            let port = try #require(URLComponents(string: url)?.port)
            let taken = try await offPool {
                try runCommand(BuildProducts.graft(), ["workbench", "--only-plugin-path", "--port", "\(port)"], timeout: .seconds(60))
            }
            #expect(taken.status == 2)
            #expect(taken.stderr.contains("port_unavailable"))
            #expect(taken.stderr.contains("\(port)"))
            let missing = try await offPool {
                try runCommand(BuildProducts.graft(), ["workbench", "--only-plugin-path", "--flow", "/nowhere/flow.json"], timeout: .seconds(60))
            }
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("flow.json"))
            #expect(try await offPool { first.stop(with: SIGINT) } == 0, "Ctrl-C stops it cleanly")
        }
    }
}
