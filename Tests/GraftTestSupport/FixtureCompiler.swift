import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the C fixture plugins in `Tests/Fixtures/plugins/` with the system `cc`.
///
/// Every member is static and stateless: safe to call from concurrent tests.
public enum Fixtures {
    /// What went wrong while building a fixture.
    public struct BuildError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The repository root: the nearest folder above this file that holds `Package.swift`.
    public static var root: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            folder.deleteLastPathComponent()
        }
        // Tests/GraftHostTests/Support/FixtureCompiler.swift → four levels up.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `Tests/Fixtures/plugins`, where the fixture sources live.
    public static var sourceFolder: URL {
        root.appendingPathComponent("Tests/Fixtures/plugins", isDirectory: true)
    }

    /// The folder holding `graft.h`.
    public static var includeFolder: URL {
        root.appendingPathComponent("Sources/CGraft/include", isDirectory: true)
    }

    /// The source of fixture `name`, for example `source("good_echo")`.
    public static func source(_ name: String) -> URL {
        sourceFolder.appendingPathComponent("\(name).c")
    }

    /// Compiles `Tests/Fixtures/plugins/<name>.c` into `folder` and returns the URL of the `.so`.
    ///
    /// The command is `cc -shared -fPIC -std=c11 -Wall -I <repo>/Sources/CGraft/include`, then `flags`,
    /// then `-D<KEY>=<VALUE>` for each define (sorted by key). Each argument goes to `cc` as is, with no shell.
    /// So a string macro is written `["ECHO_PREFIX": "\"v2:\""]`.
    ///
    /// The output is named `outputName` when given, used exactly as written. Otherwise it is
    /// `lib<name><suffix>.so`. `folder` is created if missing.
    ///
    /// `cc` writes to a hidden temporary file in `folder` whose name does not end in `.so`. That file is then
    /// `rename(2)`d over the destination. So a file watcher never sees a half-written `.so`; it sees one
    /// `IN_MOVED_TO`. A program that already `dlopen`ed the old file keeps its old inode.
    ///
    /// `include` replaces the folder of today's graft.h (the ABI compatibility test builds against released ones).
    ///
    /// Throws `BuildError` when the source is missing or `cc` fails. The error includes the command and
    /// everything `cc` printed.
    @discardableResult
    public static func build(
        _ name: String,
        into folder: URL,
        defines: [String: String] = [:],
        outputName: String? = nil,
        suffix: String = "",
        flags: [String] = [],
        include: URL? = nil
    ) throws -> URL {
        let source = source(name)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw BuildError(description: "no fixture named '\(name)': \(source.path) does not exist")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent(outputName ?? "lib\(name)\(suffix).so")
        let partial = folder.appendingPathComponent(".\(output.lastPathComponent).\(UUID().uuidString).partial")

        var arguments = ["cc", "-shared", "-fPIC", "-std=c11", "-Wall", "-I", (include ?? includeFolder).path]
        arguments += flags
        arguments += defines.sorted { $0.key < $1.key }.map { "-D\($0.key)=\($0.value)" }
        arguments += [source.path, "-o", partial.path]

        let (status, log) = try run(arguments)
        guard status == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw BuildError(description: """
                compiling fixture '\(name)' failed (exit status \(status))
                command: \(arguments.joined(separator: " "))
                \(log)
                """)
        }
        guard rename(partial.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: partial)
            throw BuildError(description: "could not move \(partial.path) to \(output.path): \(reason)")
        }
        return output
    }

    /// A new, empty folder `graft-tests-<uuid>` in the temporary directory. The caller removes it.
    public static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("graft-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs `/usr/bin/env <arguments>` and returns its exit status and its stdout and stderr, in the order printed.
    /// Both streams go to one pipe, which is read to the end before waiting. So a chatty compiler can never
    /// fill the pipe and block.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BuildError(description: "could not start `\(arguments.joined(separator: " "))`: \(error)")
        }
        // `run()` closes the parent's copy of the write end, so this read ends when `cc` (and every child of it
        // that holds the pipe) has exited.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        if process.terminationReason == .uncaughtSignal {
            return (128 + process.terminationStatus, output + "\n(killed by signal \(process.terminationStatus))")
        }
        return (process.terminationStatus, output)
    }
}
