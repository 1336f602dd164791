import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Where the scanner executable is: the host's setting, else beside the
/// running executable (where `swift build` and `make install` put it), else
/// `GRAFT_SCANNER`, else the first `graft-scanner` on `PATH`.
enum ScannerLocation {
    static let executableName = "graft-scanner"

    static func find(configured: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let manager = FileManager.default
        if let configured { return manager.isExecutableFile(atPath: configured) ? configured : nil }
        if let folder = SearchPath.executableFolder {
            let beside = folder + "/" + executableName
            if manager.isExecutableFile(atPath: beside) { return beside }
        }
        if let variable = environment["GRAFT_SCANNER"], !variable.isEmpty, manager.isExecutableFile(atPath: variable) {
            return variable
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + executableName
            if manager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
