import Foundation
import GraftTestSupport
import Testing

/// `graft run` and `graft check --flow` as a tester uses them: the built
/// executable, the plugins `swift build` put beside it, the example flow.
@Suite("graft run and graft check --flow")
struct FlowCLITests {
    static let flow = repositoryFile("Examples/flows/checkout.json").path
    static let events = repositoryFile("Examples/flows/checkout.events.jsonl").path

    @Test("graft run --json: screens, transcript, warnings, variables; exit 0")
    func runJSON() throws {
        let result = try graft("run", Self.flow, "--events", Self.events, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(Set(json.keys) == ["screens", "transcript", "warnings", "variables"])
        let screens = try #require(json["screens"] as? [[String: Any]])
        #expect(screens.compactMap { $0["screen"] as? String } == ["pick_date", "paywall", "confirmation"])
        let transcript = try #require(json["transcript"] as? [[String: Any]])
        #expect(transcript.first?["type"] as? String == "render")
        #expect(transcript.allSatisfy { $0["time"] == nil }, "no timestamps unless asked")
        #expect(transcript.contains { $0["type"] as? String == "action" && $0["name"] as? String == "format_currency" && $0["result"] as? String == "$9.99" })
        #expect((json["warnings"] as? [Any])?.isEmpty == true)
        let variables = try #require(json["variables"] as? [String: Any])
        #expect(variables["delivery_date"] as? String == "2026-12-27")
        #expect(variables["price_text"] as? String == "$9.99")

        let again = try graft("run", Self.flow, "--events", Self.events, "--json")
        #expect(again.stdout == result.stdout, "the same run prints the same JSON")
        let timed = try graft("run", Self.flow, "--events", Self.events, "--json", "--timestamps")
        let timedTranscript = try #require((try parseJSON(timed.stdout) as? [String: Any])?["transcript"] as? [[String: Any]])
        #expect(timedTranscript.allSatisfy { $0["time"] is String })
    }

    @Test("graft run prints a readable transcript and the final variables")
    func runText() throws {
        let result = try graft("run", Self.flow, "--events", Self.events)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "[pick_date] render delivery (date_picker@2)")
        #expect(lines.contains("  action format_currency {\"amount\":9.99,\"currency\":\"USD\",\"variable\":\"price_text\"} → ok \"$9.99\""))
        #expect(lines.contains("  validate luhn \"4242 4242 4242 4242\" → valid"))
        #expect(lines.contains("go to confirmation (from paywall)"))
        #expect(lines.contains("[confirmation] re-render reschedule (date_picker@1)"))
        #expect(lines.contains("flow ended on screen confirmation"))
        #expect(lines.contains("  delivery_date = \"2026-12-27\""))
    }

    @Test("graft run reads events from standard input and stops when the flow closes")
    func runFromStandardInput() throws {
        let input = """
            {"instance": "delivery", "interact": "select", "data": {"date": "2026-12-24"}}

            {"instance": "offer", "interact": "dismiss", "data": {"reason": "later"}}
            {"instance": "offer", "interact": "purchase"}
            """
        let result = try runCommand(BuildProducts.graft(), ["run", Self.flow, "--json"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let transcript = try #require(json["transcript"] as? [[String: Any]])
        #expect(transcript.last?["type"] as? String == "close")
        #expect(!transcript.contains { $0["event"] as? String == "purchase" }, "nothing is read after close")
    }

    @Test("graft run --width gives every instance that width")
    func runWidth() throws {
        let result = try graft("run", Self.flow, "--events", "/dev/null", "--width", "20", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let transcript = try #require((try parseJSON(result.stdout) as? [String: Any])?["transcript"] as? [[String: Any]])
        let output = try #require(transcript.first?["output"] as? String)
        #expect(output.count == 20, "\(output)")
    }

    @Test("graft run --events: a folder is refused, an endless stream without a newline fails at the line limit, never read whole")
    func runEventsThatAreNotFiles() throws {
        let scratch = try Scratch()
        let folder = try graft("run", Self.flow, "--events", scratch.url.path)
        #expect(folder.status == 2)
        #expect(folder.stderr.contains("invalid_config") && folder.stderr.contains("is a folder"))
        let endless = try graft("run", Self.flow, "--events", "/dev/zero")
        #expect(endless.status == 2)
        #expect(endless.stderr.contains("invalid_json") && endless.stderr.contains("/dev/zero:1"))
        #expect(endless.stderr.contains("longer than"))
    }

    @Test("a flow that is a folder or an endless device is refused by name, never read whole", arguments: ["run", "check"])
    func flowsThatAreNotFiles(command: String) throws {
        let scratch = try Scratch()
        func flowArguments(_ path: String) -> [String] { command == "run" ? ["run", path, "--events", "/dev/null"] : ["check", "--flow", path] }
        let folder = try runCommand(try BuildProducts.graft(), flowArguments(scratch.url.path))
        #expect(folder.status == 2)
        #expect(folder.stderr.contains("invalid_flow: cannot read the flow \(scratch.url.path): it is a folder"), "\(folder.stderr)")
        let endless = try runCommand(try BuildProducts.graft(), flowArguments("/dev/zero"), timeout: .seconds(60))
        #expect(endless.status == 2)
        #expect(endless.stderr.contains("invalid_flow: the flow /dev/zero is larger than 16 MiB"), "\(endless.stderr)")
    }

    @Test("graft run: a malformed flow or event line exits 2 naming where")
    func runErrors() throws {
        let scratch = try Scratch()
        let broken = scratch.file("broken.json")
        try Data(#"{"screens": [{"id": "a", "instances": 3}]}"#.utf8).write(to: broken)
        let bad = try graft("run", broken.path, "--events", "/dev/null")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("error: invalid_flow: broken.json: $.screens[0].instances: expected a list"))

        let events = scratch.file("events.jsonl")
        try Data("{\"instance\": \"delivery\", \"interact\": \"select\", \"data\": {\"date\": \"2026-12-24\"}}\n{\"instance\": \"offer\"}\n".utf8)
            .write(to: events)
        let badLine = try graft("run", Self.flow, "--events", events.path, "--json")
        #expect(badLine.status == 2)
        #expect(badLine.stderr.contains("events.jsonl:2: $: missing \"event\""))
        let error = try #require((try parseJSON(badLine.stdout) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_flow")

        let noFlow = try graft("run", scratch.file("nope.json").path, "--events", "/dev/null")
        #expect(noFlow.status == 2)
    }

    @Test("graft check --flow: exit 0 when clean")
    func checkClean() throws {
        let result = try graft("check", "--flow", Self.flow)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ok"))
        let json = try graft("check", "--flow", Self.flow, "--json")
        #expect(json.status == 0)
        let object = try #require(try parseJSON(json.stdout) as? [String: Any])
        #expect(object["ok"] as? Bool == true)
        #expect((object["findings"] as? [Any])?.isEmpty == true)
    }

    @Test("graft check --flow: exit 1 with every finding (code, detail, path, both sides)")
    func checkFindings() throws {
        let scratch = try Scratch()
        let flow = scratch.file("drifted.json")
        let text = try checkoutFlowText()
            .replacingOccurrences(of: #""inputs": {"label": "string", "min_date": "string"}"#, with: #""inputs": {"label": "number"}"#)
            .replacingOccurrences(of: #""key": "paywall","#, with: #""key": "paywall", "version": 3,"#)
            .replacingOccurrences(of: #""id": "offer", "component": "paywall","#, with: #""id": "offer", "component": "paywall", "version": 3,"#)
        try Data(text.utf8).write(to: flow)

        let result = try graft("check", "--flow", flow.path, "--json")
        #expect(result.status == 1, "\(result.stderr)")
        let object = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let findings = try #require(object["findings"] as? [[String: Any]])
        let summary = findings.map { "\($0["code"] as? String ?? "") \($0["detail"] as? String ?? "-") \($0["path"] as? String ?? "")" }
        #expect(summary == [
            "contract_mismatch input_type $.components[0].inputs.label",
            "contract_mismatch input_missing_in_editor $.components[0].inputs.min_date",
            "component_version_mismatch - $.components[2].version",
            "contract_mismatch input_not_in_definition $.screens[0].instances[0].inputs.min_date",
            "component_version_mismatch - $.screens[1].instances[0].version",
        ])
        #expect(findings[0]["editor"] as? String == "number")
        #expect(findings[0]["plugin"] as? String == "string")
        #expect(findings[2]["plugin"] as? String == "1")
        #expect(findings[3]["editor"] == nil || findings[3]["editor"] is NSNull, "the definition no longer has min_date")
        #expect(findings[3]["plugin"] as? String == "string")
        #expect(findings.allSatisfy { ($0["message"] as? String)?.isEmpty == false })

        let text2 = try graft("check", "--flow", flow.path)
        #expect(text2.status == 1)
        #expect(text2.stdout.contains("5 problems"))
        #expect(text2.stdout.contains("$.components[0].inputs.label: contract_mismatch (input_type)"))
        #expect(text2.stdout.contains("editor: number   plugin: string"))
    }

    @Test("graft check --flow: exit 2 for an unreadable or malformed flow; a plugin or a flow, not both")
    func checkUsage() throws {
        let scratch = try Scratch()
        let broken = scratch.file("broken.json")
        try Data("{\"screens\": [".utf8).write(to: broken)
        let malformed = try graft("check", "--flow", broken.path, "--json")
        #expect(malformed.status == 2)
        let error = try #require((try parseJSON(malformed.stdout) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_json")
        #expect(try graft("check", "--flow", scratch.file("missing.json").path).status == 2)
        #expect(try graft("check").status == 2)
        #expect(try graft("check", "x.so", "--flow", Self.flow).status == 2)
    }
}
