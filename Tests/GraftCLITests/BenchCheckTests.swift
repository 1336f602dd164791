import Foundation
import GraftTestSupport
import Testing

/// `graft bench --check`: every ratio with a target is compared with it, from
/// one table, the one docs/Performance.md shows; a miss fails the run.
@Suite("graft bench --check")
struct BenchCheckTests {
    static func bench(_ arguments: [String]) throws -> CommandResult {
        let scratch = try Scratch()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.url.path
        return try runCommand(BuildProducts.graft(), ["bench"] + arguments, environment: environment, timeout: .seconds(120))
    }

    @Test("the table of targets graft bench holds ratios to is the one docs/Performance.md shows")
    func tableIsThePages() throws {
        let printed = try Self.bench(["--targets"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let page = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/Performance.md"), encoding: .utf8)
        let start = try #require(page.range(of: "<!-- graft bench --targets -->\n"))
        let end = try #require(page.range(of: "\n<!-- end of targets -->", range: start.upperBound..<page.endIndex))
        #expect(String(page[start.upperBound..<end.lowerBound]) == printed.stdout.trimmingCharacters(in: .newlines))
        #expect(printed.stdout.contains("| isolation | same CPU: render / ping-pong (p50) | <= 1 |"))
    }

    @Test("a doctored target fails the run, naming the ratio, its value and the target; the same ratio held to a bound it meets passes")
    func doctoredTargetFails() throws {
        let missed = try Self.bench(["registry", "--iterations", "2000", "--check", "--target", "registry: resolve / dictionary <= 0.001"])
        #expect(missed.status == 1)
        #expect(missed.stderr.contains("check: 0 of 1 ratios with a target meet it; missed:"))
        #expect(missed.stderr.contains("registry: resolve / dictionary = "))
        #expect(missed.stderr.contains("target <= 0.001"))
        #expect(missed.stdout.contains("(target <= 0.001)"))

        let met = try Self.bench(["registry", "--iterations", "2000", "--check", "--json", "--target", "registry: resolve / dictionary >= 0.001"])
        #expect(met.status == 0, "\(met.stderr)")
        let json = try #require(try parseJSON(met.stdout) as? [String: Any])
        let check = try #require(json["check"] as? [[String: Any]])
        #expect(check.count == 1 && check.first?["met"] as? Bool == true && check.first?["target"] as? String == ">= 0.001")
    }

    @Test("a target that does not read, or names no part, is refused before anything runs")
    func badTargets() throws {
        for bad in ["resolve / dictionary <= 1", "registry: resolve / dictionary < 1", "nothing: x <= 1", "registry: x <= many"] {
            let refused = try Self.bench(["registry", "--check", "--target", bad])
            #expect(refused.status != 0, "\(bad)")
            #expect(refused.stderr.contains("--target"), "\(bad): \(refused.stderr)")
            #expect(!refused.stdout.contains("resolve_ns"))
        }
    }
}
