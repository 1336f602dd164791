import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What `swift build` put in the build folder: the `graft` executable and the
/// first-party plugins. The test binary runs from that same folder.
public enum BuildProducts {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder of the running test binary (`.build/<triple>/debug`).
    public static var folder: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// A product in the build folder, or an error saying to run `swift build` first.
    public static func product(_ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(description: "\(url.path) is missing: run `swift build` before `swift test` (the README's test command does).")
        }
        return url
    }

    public static func graft() throws -> URL { try product("graft") }
    public static func plugin(_ name: String) throws -> URL { try product("lib\(name).so") }
}

/// The result of running a command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` with `arguments`, stdout and stderr captured to files so
/// neither pipe can fill and block, stdin from /dev/null; killed past `timeout`.
public func runCommand(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
    timeout: Duration = .seconds(300)
) throws -> CommandResult {
    let scratch = try Scratch()
    let out = scratch.file("stdout"), err = scratch.file("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    if let input {
        let inputFile = scratch.file("stdin")
        try Data(input.utf8).write(to: inputFile)
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    // Bounded: a command that hangs is killed, and the test sees why.
    let deadline = ContinuousClock.now + timeout
    while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
    var timedOut = false
    if process.isRunning {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    if timedOut {
        return CommandResult(status: -1, stdout: "", stderr: "killed after \(timeout): \(executable.path) \(arguments.joined(separator: " "))")
    }
    return CommandResult(
        status: process.terminationStatus,
        stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// Runs the built `graft` with `arguments`.
public func graft(_ arguments: String..., environment: [String: String]? = nil) throws -> CommandResult {
    try runCommand(BuildProducts.graft(), arguments, environment: environment)
}

/// The built `graft` with its registry cache in `cache` (`XDG_CACHE_HOME`), so
/// that runs of one test share it and no two tests do; its config file
/// (`graft config`) is there too, in `config/graft/`, never the developer's.
public func graft(_ arguments: [String], cache: URL, input: String? = nil) throws -> CommandResult {
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CACHE_HOME"] = cache.path
    environment["XDG_CONFIG_HOME"] = cache.appendingPathComponent("config").path
    environment["GRAFT_CONFIG"] = nil
    return try runCommand(BuildProducts.graft(), arguments, environment: environment, input: input, timeout: .seconds(120))
}

/// Runs blocking work (child processes, sockets, compilers) on a dispatch
/// queue, never on the cooperative threads: on two cores there are two, and
/// a test that blocks them stalls every async test of the run.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// Parses JSON output into Foundation objects.
public func parseJSON(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}
