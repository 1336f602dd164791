import Foundation
import GraftTestSupport
import Testing

/// The `graft` CLI as a tester uses it: the real executable, the real
/// plugins `swift build` put beside it, a plain-`cc` third-party plugin, and
/// broken fixtures. Exit codes: 0 success, 1 reported failure, 2 usage or load error.
@Suite("graft CLI")
struct CLITests {
    /// Builds Examples/c-plugin the way a third party does, with cc alone.
    static func buildExamplePlugin(into folder: URL) throws -> URL {
        let output = folder.appendingPathComponent("librating.so")
        let result = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", Fixtures.includeFolder.path,
             Fixtures.root.appendingPathComponent("Examples/c-plugin/rating.c").path, "-o", output.path])
        guard result.status == 0 else { throw Fixtures.BuildError(description: result.stderr) }
        return output
    }

    @Test("graft list shows the Swift, SwiftPM-C and plain-cc plugins, and the failures")
    func listEverything() throws {
        let scratch = try Scratch()
        _ = try Self.buildExamplePlugin(into: scratch.url)
        try Fixtures.build("bad_abi_major", into: scratch.url)
        let result = try graft("list", "--json", "--plugin-path", scratch.url.path)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let plugins = try #require(json["plugins"] as? [[String: Any]])
        let ids = Set(plugins.compactMap { $0["id"] as? String })
        #expect(ids.isSuperset(of: ["dev.graft.date-picker", "dev.graft.checkout", "com.example.rating"]))

        let picker = try #require(plugins.first { $0["id"] as? String == "dev.graft.date-picker" })
        #expect(picker["abi"] as? String == "1.3")
        #expect(picker["status"] as? String == "loaded")
        let components = try #require(picker["components"] as? [[String: Any]])
        let v2 = try #require(components.first { $0["key"] as? String == "date_picker" && $0["version"] as? Int == 2 })
        #expect(v2["inputs"] as? [String: String] == ["label": "string", "min_date": "string"])
        let outputs = try #require(v2["outputs"] as? [String: [String: Any]])
        #expect(outputs["date_selected"]?["payload"] as? [String: String] == ["date": "string", "timestamp": "number"])
        #expect((v2["debugConfig"] as? [String: Any])?["label"] as? String == "Pick a date")

        let checkout = try #require(plugins.first { $0["id"] as? String == "dev.graft.checkout" })
        let validators = try #require(checkout["validators"] as? [[String: Any]])
        #expect(Set(validators.compactMap { $0["name"] as? String }) == ["luhn", "iban", "email", "length", "range", "regex"])
        #expect(validators.first { $0["name"] as? String == "luhn" }?["signature"] as? String == "bool(string)")

        let failures = try #require(json["failures"] as? [[String: Any]])
        #expect(failures.contains { ($0["path"] as? String)?.hasSuffix("libbad_abi_major.so") == true && $0["code"] as? String == "abi_incompatible" })

        let text = try graft("list", "--plugin-path", scratch.url.path)
        #expect(text.stdout.contains("date_picker@2"))
        #expect(text.stdout.contains("failed to load (1)"))
    }

    @Test("graft try renders a component from its debugConfig")
    func tryFromDebugConfig() throws {
        let result = try graft("try", "date_picker", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(json["key"] as? String == "date_picker")
        #expect(json["version"] as? Int == 1)
        #expect(json["mediaType"] as? String == "text/plain")
        #expect((json["output"] as? String)?.contains("Pick a date") == true)
        #expect((json["warnings"] as? [Any])?.isEmpty == true)
        #expect((json["emitted"] as? [Any])?.isEmpty == true)
    }

    @Test("graft try with an interaction shows the emitted event and its payload")
    func tryWithInteraction() throws {
        let result = try graft("try", "date_picker@2", "--interact", #"select:{"date":"2026-12-24"}"#, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let emitted = try #require(json["emitted"] as? [[String: Any]])
        #expect(emitted.count == 1)
        #expect(emitted.first?["event"] as? String == "date_selected")
        let payload = try #require(emitted.first?["payload"] as? [String: Any])
        #expect(payload["date"] as? String == "2026-12-24")
        #expect(payload["timestamp"] as? Double == 1_798_070_400)
    }

    @Test("graft try with a config of the wrong type warns and renders with defaults")
    func tryDrift() throws {
        let result = try graft("try", "paywall", "--config", #"{"title": 5, "price": 3, "colour": "red"}"#, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let codes = (json["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("input_type_mismatch"))
        #expect(codes.contains("unknown_input"))
    }

    @Test("newcomer stumbles: negative values, a plugin path that names nothing, near misses, --config named, unknown interactions")
    func newcomerStumbles() throws {
        let scratch = try Scratch()
        let echo = try Fixtures.build("good_echo", into: scratch.url.appendingPathComponent("plugins"))
        let only = ["--only-plugin-path", "--plugin-path", echo.path]
        let runner = try BuildProducts.graft()

        let negative = try runCommand(runner, ["validate", "is_even", "-4"] + only)
        #expect(negative.status == 0, "\(negative.stderr)")
        #expect(negative.stdout.contains("valid"))
        let odd = try runCommand(runner, ["validate", "is_even", "-3"] + only)
        #expect(odd.status == 1, "\(odd.stderr)")
        let typo = try runCommand(runner, ["validate", "is_even", "2", "--plugn-path", "x"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("Unknown option '--plugn-path'"))

        let missing = try runCommand(runner, ["list", "--only-plugin-path", "--plugin-path", "no/such/folder"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error: plugin_path_not_found: --plugin-path no/such/folder"))

        let nearValidator = try runCommand(runner, ["validate", "is_evn", "2"] + only)
        #expect(nearValidator.stderr.contains("Did you mean 'is_even'?"))
        let nearComponent = try runCommand(runner, ["try", "ecko"] + only)
        #expect(nearComponent.stderr.contains("Did you mean 'echo'?"))
        let nearCommand = try runCommand(runner, ["lsit"])
        #expect(nearCommand.stderr.contains("Did you mean 'graft list'?"))
        let farOff = try runCommand(runner, ["validate", "zzzzzz", "2"] + only)
        #expect(!farOff.stderr.contains("Did you mean"))

        let badConfig = try runCommand(runner, ["try", "echo", "--config", "{\"text\": "] + only)
        #expect(badConfig.status == 2 || badConfig.status == 1)
        #expect(badConfig.stderr.contains("invalid_json: --config is not valid JSON: line 1, column 10"), "\(badConfig.stderr)")

        let interaction = try runCommand(runner, ["try", "echo", "--interact", "teleport"] + only)
        #expect(interaction.stderr.contains("unknown_interaction"), "\(interaction.stderr)")
    }

    @Test("a missing component is an error with its code, exit 1")
    func tryMissing() throws {
        let result = try graft("try", "no_such_widget")
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: custom_component_not_found:"))
        let mismatch = try graft("try", "date_picker@7", "--json")
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr.contains("error: component_version_mismatch:"))
        let json = try #require(try parseJSON(mismatch.stdout) as? [String: [String: String]])
        #expect(json["error"]?["code"] == "component_version_mismatch")
    }

    @Test("graft inspect prints one contract")
    func inspect() throws {
        let result = try graft("inspect", "paywall", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(json["inputs"] as? [String: String] == ["title": "string", "price": "number", "features": "list"])
        #expect(json["plugin"] as? String == "dev.graft.checkout")
    }

    @Test("graft check: exit 0 when clean, 1 with every problem listed")
    func check() throws {
        let scratch = try Scratch()
        let good = try Fixtures.build("good_echo", into: scratch.url)
        let bad = try Fixtures.build("bad_abi_major", into: scratch.url)
        #expect(try graft("check", good.path).status == 0)
        let result = try graft("check", bad.path, "--json")
        #expect(result.status == 1)
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(json["ok"] as? Bool == false)
        #expect((json["problems"] as? [[String: Any]])?.first?["code"] as? String == "abi_incompatible")
        let notThere = try graft("check", scratch.file("missing.so").path)
        #expect(notThere.status == 1)
        #expect(notThere.stdout.contains("plugin_not_found"))
    }

    @Test("graft check reports a plugin that crashes while loading as plugin_crashed, and survives it")
    func checkCrashingPlugin() throws {
        let scratch = try Scratch()
        let crashing = try Fixtures.build("bad_crash_init", into: scratch.url)
        let result = try graft("check", crashing.path, "--json")
        #expect(result.status == 1)
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        let problem = try #require((json["problems"] as? [[String: Any]])?.first)
        #expect(problem["code"] as? String == "plugin_crashed")
        #expect((problem["message"] as? String)?.contains("signal 11") == true)
    }

    @Test("graft validate: exit 0 valid, 1 invalid with the message, 2 error")
    func validate() throws {
        #expect(try graft("validate", "luhn", "4111 1111 1111 1111").status == 0)
        let invalid = try graft("validate", "luhn", "4111 1111 1111 1112")
        #expect(invalid.status == 1)
        #expect(invalid.stdout.contains("invalid"))
        let missing = try graft("validate", "nope", "x")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error: validator_not_found:"))
        let badParam = try graft("validate", "length", "abc", "one", "5")
        #expect(badParam.status == 2)
        #expect(badParam.stderr.contains("error: invalid_param:"))
    }

    @Test("usage errors exit 2")
    func usage() throws {
        #expect(try graft("no-such-command").status == 2)
        #expect(try graft("try").status == 2)
        #expect(try graft("try", "Bad Key!").status == 1)
    }

    @Test("the C plugin in docs/CPlugins.md builds with cc -Werror and works as the page says")
    func readmePlugin() throws {
        let scratch = try Scratch()
        let guide = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/CPlugins.md"), encoding: .utf8)
        let block = try #require(guide.components(separatedBy: "```c\n").dropFirst().first?.components(separatedBy: "```").first)
        try Data(block.utf8).write(to: scratch.file("hello.c"))
        let compiled = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", Fixtures.includeFolder.path,
             scratch.file("hello.c").path, "-o", scratch.file("libhello.so").path])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        #expect(try graft("check", scratch.file("libhello.so").path).status == 0)
        let result = try graft("try", "hello", "--interact", "wave", "--json", "--plugin-path", scratch.url.path)
        let json = try #require(try parseJSON(result.stdout) as? [String: Any])
        #expect(json["output"] as? String == "Hello, Ada")
        let emitted = try #require(json["emitted"] as? [[String: Any]])
        #expect(emitted.first?["event"] as? String == "greeted")
        #expect(emitted.first?["payload"] as? [String: String] == ["name": "Ada"])
    }

    @Test("docs/CPlugins.md's library function as a validator (zlib's crc32) builds with -lz and answers in the sandbox as the page says")
    func libraryFunctionValidator() throws {
        let scratch = try Scratch()
        let guide = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/CPlugins.md"), encoding: .utf8)
        let block = try #require(
            guide.components(separatedBy: "```c\n").dropFirst().first { $0.hasPrefix("/* crc32.c") }?.components(separatedBy: "```").first)
        try Data(block.utf8).write(to: scratch.file("crc32.c"))
        let compiled = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", Fixtures.includeFolder.path,
             scratch.file("crc32.c").path, "-o", scratch.file("libcrc32.so").path, "-lz"])
        try #require(compiled.status == 0, "\(compiled.stderr)")
        #expect(try graft("check", scratch.file("libcrc32.so").path).status == 0)
        let valid = try graft("validate", "crc32", "hello", "907060870", "--plugin-path", scratch.url.path)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("crc32@1 from com.example.crc32"), "\(valid.stdout)")
        #expect(valid.stdout.hasSuffix("valid\n"), "\(valid.stdout)")
        let invalid = try graft("validate", "crc32", "hello", "1", "--plugin-path", scratch.url.path)
        #expect(invalid.status == 1)
        #expect(invalid.stdout.contains("invalid: has another checksum"), "\(invalid.stdout)")
    }

    @Test("graft sdk --cflags points at graft.h, and the example plugin builds with it")
    func sdk() throws {
        let result = try graft("sdk", "--cflags")
        #expect(result.status == 0)
        let flag = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(flag.hasPrefix("-I"))
        #expect(FileManager.default.fileExists(atPath: String(flag.dropFirst(2)) + "/graft.h"))
    }

    @Test("GRAFT_PLUGIN_PATH is searched; relative entries are refused with a warning")
    func environmentPath() throws {
        let scratch = try Scratch()
        try Fixtures.build("good_echo", into: scratch.url)
        var environment = ProcessInfo.processInfo.environment
        environment["GRAFT_PLUGIN_PATH"] = "relative/plugins:\(scratch.url.path)"
        let result = try graft("inspect", "echo", "--log-level", "warning", environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("relative/plugins"))
    }
}
