import ArgumentParser
import FoundationEssentials
import GraftCommandLine
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

struct SDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Print what a plugin author needs to build against graft.h.",
        discussion: "cc -shared -fPIC -o libacme.so acme.c $(graft sdk --cflags)")

    @Flag(help: "Print the compiler flags (-I<folder of graft.h>).")
    var cflags = false

    @Flag(help: "Print the path of graft.h.")
    var header = false

    func run() throws {
        guard let folder = Self.includeFolder() else {
            throw CommandFailure(
                error: .init(.pluginNotFound, "graft.h was not found; set GRAFT_INCLUDE_DIR to the folder that holds it."),
                json: false)
        }
        if header {
            Output.line(folder + "/graft.h")
        } else if cflags {
            Output.line("-I\(folder)")
        } else {
            Output.line("include folder: \(folder)")
            Output.line("cflags: -I\(folder)")
            Output.line("build a plugin: cc -shared -fPIC -std=c11 -o libacme.so acme.c -I\(folder)")
        }
    }

    /// Where graft.h is: GRAFT_INCLUDE_DIR, an install prefix beside the
    /// executable (`bin/../include/graft`), or the source tree graft was built from.
    static func includeFolder() -> String? {
        var candidates: [String] = []
        if let folder = ProcessInfo.processInfo.environment["GRAFT_INCLUDE_DIR"] { candidates.append(folder) }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(FilePaths.standardized(FilePaths.folder(of: executable) + "/../include/graft"))
        }
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(sourceRoot.appendingPathComponent("Sources/CGraft/include").path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/graft.h") }
    }
}
