import Foundation
import GraftDebugger
import GraftHost
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `graft-example-host` as a user runs it, in one "terminal", and
/// the built `graft debug attach` (or a `DebugClient`) in another.
@Suite("Example host and graft debug attach", .serialized, .timeLimit(.minutes(10)))
struct ExampleHostTests {
    /// A running `graft-example-host`, terminated (then killed) when the value goes away.
    final class HostProcess {
        let process = Process()
        let socketPath: String
        let output: URL

        init(socketPath: String, folder: URL, interval: Int = 40, extraPluginPaths: [String] = []) throws {
            self.socketPath = socketPath
            output = folder.appendingPathComponent("host.out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = try BuildProducts.product("graft-example-host")
            process.arguments = [
                "--debug-socket", socketPath, "--interval", String(interval), "--only-plugin-path",
                "--plugin-path", try BuildProducts.plugin("DatePicker").path, "--plugin-path", try BuildProducts.plugin("Checkout").path,
                "--flow", repositoryFile("Examples/flows/checkout.json").path,
                "--events", repositoryFile("Examples/flows/checkout.events.jsonl").path,
            ] + extraPluginPaths.flatMap { ["--plugin-path", $0] }
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Connectable, not merely present: the socket file exists from bind(), before listen().
            guard eventually(timeout: .seconds(30), { (try? DebugClient(socketPath: socketPath)) != nil || !process.isRunning }),
                process.isRunning
            else {
                stop()
                throw Fixtures.BuildError(description: "graft-example-host did not open its socket:\n\(log)")
            }
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// SIGTERM, and SIGKILL if it has not exited within five seconds.
        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            if !eventually(timeout: .seconds(5), { !process.isRunning }) {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        deinit { stop() }
    }

    @Test("plugins that crash or exit while loading do not stop the example host: it lists them as failures and runs the flow")
    func crashingPluginsBeside() throws {
        let folder = try SocketFolder()
        let bad = folder.url.appendingPathComponent("bad")
        for fixture in ["bad_crash_init", "bad_exit_init", "bad_crash_constructor"] { try Fixtures.build(fixture, into: bad) }
        let host = try HostProcess(socketPath: folder.path("host.sock"), folder: folder.url, extraPluginPaths: [bad.path])
        defer { host.stop() }
        let client = try DebugClient(socketPath: host.socketPath)
        _ = try client.hello()
        let report = try client.request(["request": "plugins"])["report"]
        #expect(report?["plugins"]?.listValue?.compactMap { $0["id"]?.stringValue } == ["dev.graft.checkout", "dev.graft.date-picker"])
        let failures = report?["failures"]?.listValue ?? []
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0["code"]?.stringValue == "plugin_crashed" }, "\(failures)")
        // The flow runs on: the action log gets the timer's events.
        _ = try client.request(["request": "follow", "filter": ["instance": "offer"]])
        let line = try client.nextStreamed(timeout: .seconds(20))
        #expect(line?["record"] != nil, "the host kept running the flow:\n\(host.log)")
    }

    @Test("attach to the running example host: plugins, then the log followed while its timer feeds events")
    func attach() throws {
        let folder = try SocketFolder()
        let host = try HostProcess(socketPath: folder.path("host.sock"), folder: folder.url)
        defer { host.stop() }

        let client = try DebugClient(socketPath: host.socketPath)
        let hello = try client.hello()
        #expect(hello["protocol"] == "graft-debug")
        #expect(hello["pid"] == .number(Double(host.process.processIdentifier)))
        let report = try client.request(["request": "plugins"])["report"]
        let ids = report?["plugins"]?.listValue?.compactMap { $0["id"]?.stringValue }
        #expect(ids == ["dev.graft.checkout", "dev.graft.date-picker"])

        _ = try client.request(["request": "follow", "filter": ["instance": "offer"]])
        var records: [ActionLogRecord] = []
        while !records.contains(where: { if case .action(let action) = $0.detail { action.name == "go_to" } else { false } }) {
            let line = try #require(try client.nextStreamed(timeout: .seconds(20)), "the host closed the connection:\n\(host.log)")
            records.append(try ActionLogRecord(json: try #require(line["record"])))
        }
        let purchase = try #require(records.first { $0.kind == .event && $0.event == "purchase" })
        #expect(purchase.pluginID == "dev.graft.checkout")
        #expect(purchase.component == ComponentReference(key: "paywall"))
        #expect(purchase.instance == "offer")
        #expect(purchase.detail == .event(payload: ["title": "Graft Pro", "price": 9.99], origin: .injected, wiredActions: 5))
        let after = records.drop { $0.sequence <= purchase.sequence }
        let names = after.compactMap { record -> String? in if case .action(let action) = record.detail { action.name } else { nil } }
        #expect(names == ["validate", "set_variable", "format_currency", "track", "go_to"])
        #expect(records.allSatisfy { $0.instance == "offer" })
    }

    @Test("graft debug attach prints plugins, the log (text and JSON lines) and a sandbox try")
    func cli() throws {
        let folder = try SocketFolder()
        let host = try HostProcess(socketPath: folder.path("host.sock"), folder: folder.url)
        defer { host.stop() }
        let client = try DebugClient(socketPath: host.socketPath)
        try client.hello()
        #expect(eventually(timeout: .seconds(20)) { (try? client.request(["request": "tail"])["lastSequence"]?.numberValue ?? 0) ?? 0 >= 12 })

        let plugins = try graft("debug", "attach", host.socketPath, "plugins")
        #expect(plugins.status == 0, "\(plugins.stderr)")
        #expect(plugins.stdout.hasPrefix("2 plugins loaded, 0 failed to load"))
        #expect(plugins.stdout.contains("    date_picker@2 — Date picker"))

        let log = try graft("debug", "attach", host.socketPath, "log", "--last", "5", "--json", "--component", "paywall")
        #expect(log.status == 0, "\(log.stderr)")
        let lines = log.stdout.split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines {
            let record = try GraftValue(json: String(line))
            #expect(record["component"] == "paywall@1")
            #expect(record["plugin"] == "dev.graft.checkout")
        }
        let text = try graft("debug", "attach", host.socketPath, "log", "--last", "3", "--event", "date_selected")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains(".date_selected "))

        let tried = try graft(
            "debug", "attach", host.socketPath, "try", "paywall", "--instance", "offer", "--emit", #"purchase:{"title":"Pro","price":5}"#)
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains("Actions called (newest last):"))
        #expect(tried.stdout.contains(#"would run format_currency {"amount":5,"currency":"USD","variable":"price_text"}"#))

        let missing = try graft("debug", "attach", host.socketPath, "try", "no_such_widget")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("error: custom_component_not_found:"))
    }

    @Test("SIGTERM closes the endpoint, removes the socket and exits 0")
    func cleanExit() throws {
        let folder = try SocketFolder()
        let host = try HostProcess(socketPath: folder.path("host.sock"), folder: folder.url)
        defer { host.stop() }
        host.process.terminate()
        let exited = eventually { !host.process.isRunning }
        #expect(exited, "still running 10 s after SIGTERM:\n\(host.log)")
        guard exited else { return }  // `defer` kills it
        #expect(host.process.terminationReason == .exit)
        #expect(host.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: host.socketPath))
        #expect(host.log.contains("debug endpoint closed"))
    }

    @Test("run-time failures exit 2 with the code and the reason, no usage text; event files are read line by line and bounded")
    func runTimeFailures() throws {
        let folder = try SocketFolder()
        let host = try BuildProducts.product("graft-example-host")
        func run(_ arguments: [String]) throws -> CommandResult {
            try runCommand(host, ["--debug-socket", folder.path("h.sock"), "--only-plugin-path"] + arguments)
        }
        let flow = repositoryFile("Examples/flows/checkout.json").path
        let cases: [(arguments: [String], says: String)] = [
            (["--flow", folder.path("missing.json")], "cannot read the flow: invalid_flow: "),
            (["--flow", flow, "--events", folder.url.path], "is a folder"),
            (["--flow", flow, "--events", "/dev/zero"], "longer than"),
        ]
        for (arguments, says) in cases {
            let result = try run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            // Its last line; the host's log may come first (a search path that found no plugin says so).
            let said = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect(said.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            #expect(said.contains(says), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("h.sock")), "no socket is left behind")
        }
        // A socket folder others can write to is a run-time refusal too.
        let open = try runCommand(host, ["--debug-socket", "/tmp/graft-example-\(getpid()).sock", "--only-plugin-path"])
        #expect(open.status == 2)
        #expect(open.stderr.contains("error: cannot open the debug endpoint: endpoint_unavailable"))
        #expect(!open.stderr.contains("Usage:"))
        // A usage error still shows the usage.
        let usage = try run(["--interval", "0"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Usage:"))
    }

    @Test("attaching where nothing listens fails with exit 2 and says why")
    func nothingThere() throws {
        let folder = try SocketFolder()
        let result = try graft("debug", "attach", folder.path("none.sock"), "plugins")
        #expect(result.status == 2)
        #expect(result.stderr.contains("endpoint_unavailable: nothing listens at \(folder.path("none.sock"))"))
    }
}

@Suite("graft debug plugins and graft try in the sandbox")
struct DebugCLITests {
    @Test("graft debug plugins: failures first with why, then the plugins; --json is the list report")
    func plugins() throws {
        let scratch = try Scratch()
        try Fixtures.build("bad_abi_major", into: scratch.url)
        let text = try graft("debug", "plugins", "--plugin-path", scratch.url.path)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let failed = try #require(lines.firstIndex { $0.hasPrefix("FAILED  ") && $0.hasSuffix("libbad_abi_major.so") })
        #expect(lines[failed + 1].contains("abi_incompatible: "))
        let picker = try #require(lines.firstIndex { $0.hasPrefix("dev.graft.date-picker ") })
        #expect(failed < picker)
        let json = try graft("debug", "plugins", "--json", "--plugin-path", scratch.url.path)
        let list = try graft("list", "--json", "--plugin-path", scratch.url.path)
        #expect(json.stdout == list.stdout)
    }

    @Test("graft try lists the emits under Actions called and keeps its JSON fields, adding actions")
    func tryActionsCalled() throws {
        let result = try graft("try", "date_picker@2", "--interact", #"select:{"date":"2026-12-24"}"#, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        for field in ["key", "version", "plugin", "mediaType", "output", "warnings", "emitted", "actions"] {
            #expect(json[field] != nil, "missing \(field)")
        }
        let actions = try #require(json["actions"] as? [[String: Any]])
        #expect(actions.count == 1)
        #expect(actions.first?["type"] as? String == "emit")
        #expect(actions.first?["during"] as? String == "interact select")
        let text = try graft("try", "date_picker@2", "--interact", #"select:{"date":"2026-12-24"}"#)
        #expect(text.stdout.contains("Actions called (newest last):\n  emit date_selected {\"date\":\"2026-12-24\",\"timestamp\":1798070400}  (component, during interact select)"))
    }

    @Test("graft try --emit simulates an event, checks it, and with --flow shows what would run")
    func tryEmit() throws {
        let undeclared = try graft("try", "paywall", "--emit", "refund", "--json")
        #expect(undeclared.status == 0, "\(undeclared.stderr)")
        let json = try #require(try parseJSON(undeclared.stdout) as? [String: Any])
        let actions = try #require(json["actions"] as? [[String: Any]])
        #expect(actions.first?["origin"] as? String == "simulated")
        #expect((actions.first?["warnings"] as? [[String: Any]])?.first?["code"] as? String == "undeclared_event")
        #expect((json["emitted"] as? [Any])?.isEmpty == true)

        let flow = repositoryFile("Examples/flows/checkout.json").path
        let wired = try graft(
            "try", "date_picker@2", "--flow", flow, "--instance", "delivery", "--emit", #"date_selected:{"date":"2026-12-25","timestamp":0}"#)
        #expect(wired.status == 0, "\(wired.stderr)")
        #expect(wired.stdout.contains(#"    would run set_variable {"value":"2026-12-25","variable":"delivery_date"}  (on date_selected, not executed)"#))
        #expect(wired.stdout.contains(#"    would run go_to {"screen":"paywall"}"#))

        let wrong = try graft("try", "paywall", "--flow", flow, "--instance", "delivery")
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("places date_picker@2, not paywall@1"))
        #expect(try graft("try", "paywall", "--instance", "offer").status == 2, "--instance needs --flow")
    }
}
