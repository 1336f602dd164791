import FoundationEssentials
import GraftHost
import GraftSupport

/// Where graft.h is, for `graft sdk` and the benchmarks that compile C.
package enum GraftHeader {
    /// GRAFT_INCLUDE_DIR, an install prefix beside the executable
    /// (`bin/../include/graft`), or the source tree this was built from.
    package static func includeFolder() -> String? {
        var candidates: [String] = []
        if let folder = ProcessInfo.processInfo.environment["GRAFT_INCLUDE_DIR"] { candidates.append(folder) }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(FilePaths.standardized(FilePaths.folder(of: executable) + "/../include/graft"))
        }
        // Sources/GraftCommandLine/GraftHeader.swift → the package root.
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(sourceRoot.appendingPathComponent("Sources/CGraft/include").path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/graft.h") }
    }
}
