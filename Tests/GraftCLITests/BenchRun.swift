import Foundation
import GraftTestSupport
import Testing

/// Runs `graft bench PART … --json` with everything it makes under a scratch
/// TMPDIR, expects success, and returns the part's JSON and that folder (to
/// check that nothing is left behind).
func benchPart(_ part: String, _ arguments: [String], scratch: borrowing Scratch) throws -> [String: Any] {
    var environment = ProcessInfo.processInfo.environment
    environment["TMPDIR"] = scratch.url.path
    let result = try runCommand(
        BuildProducts.graft(), ["bench", part] + arguments + ["--json"], environment: environment, timeout: .seconds(300))
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try parseJSON(result.stdout) as? [String: Any])
    return try #require(json[part] as? [String: Any], "\(result.stdout)")
}

/// What a bench left in the scratch TMPDIR: nothing, when it cleaned up.
func leftBehind(_ scratch: borrowing Scratch) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
}
