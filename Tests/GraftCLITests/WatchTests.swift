import Foundation
import GraftTestSupport
import Testing

/// `graft watch` as a plugin author uses it: rebuild, see the new render.
@Suite("graft watch")
struct WatchTests {
    @Test("re-renders after a rebuild, keeps the last good render after a broken one, exits on Ctrl-C")
    func watchRebuilds() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder, outputName: "libecho.so")
        let output = scratch.file("watch.out")
        let process = try Self.startWatch(folder: folder, output: output)
        defer { if process.isRunning { process.terminate() } }
        func text() -> String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        try waitFor("the first render and the watch line") { text().contains("echo:hello") && text().contains("watching") }
        try Fixtures.build("good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v2:\"", "ECHO_PLUGIN_VERSION": "\"2.0.0\""], outputName: "libecho.so")
        try waitFor("the swap line and the new render") { text().contains("swapped test.echo 1.0.0 → 2.0.0") && text().contains("v2:hello") }
        #expect(text().contains("1 instance recreated"))

        try Data("not a plugin".utf8).write(to: folder.appendingPathComponent("libecho.so"))
        try waitFor("the failure line") { text().contains("failed, the running build stays") }
        #expect(text().contains("not_a_shared_library"))

        process.interrupt()
        try waitFor("the exit") { !process.isRunning }
        #expect(process.terminationStatus == 0)
    }

    @Test("follows the key: a build that drops the component is said, the build that brings it back is rendered")
    func watchFollowsTheKey() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder, outputName: "libecho.so")
        let output = scratch.file("watch.out")
        let process = try Self.startWatch(folder: folder, output: output)
        defer { if process.isRunning { process.terminate() } }
        func text() -> String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        try waitFor("the first render") { text().contains("echo:hello") && text().contains("watching") }
        try Fixtures.build(
            "good_echo", into: folder, defines: ["ECHO_NO_COMPONENT": "1", "ECHO_PLUGIN_VERSION": "\"2.0.0\""], outputName: "libecho.so")
        try waitFor("the note that echo is gone") { text().contains("echo@1 is not provided by any plugin now") }
        try Fixtures.build(
            "good_echo", into: folder, defines: ["ECHO_PREFIX": "\"v3:\"", "ECHO_PLUGIN_VERSION": "\"3.0.0\""], outputName: "libecho.so")
        try waitFor("the new build's render") { text().contains("v3:hello") }
        process.interrupt()
        try waitFor("the exit") { !process.isRunning }
    }

    /// `graft watch echo` on `folder`, its output going to `output`.
    static func startWatch(folder: URL, output: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = try BuildProducts.graft()
        process.arguments = ["watch", "echo", "--plugin-path", folder.path, "--only-plugin-path", "--debounce", "20"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func waitFor(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(15)
        while !condition() {
            guard Date() < deadline else { throw Fixtures.BuildError(description: "timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
