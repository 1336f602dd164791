import FoundationEssentials

/// Graft's helper executables (`graft-scanner`, `graft-workbench`) are found
/// the same way: the caller's setting, else beside the running executable
/// (where `swift build` and the installer put them), else the environment
/// variable that names one, else the first on `PATH` (absolute folders only:
/// a relative entry would depend on the current directory).
package enum CompanionExecutable {
    package static func find(
        named name: String, variable: String, configured: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        let manager = FileManager.default
        if let configured { return manager.isExecutableFile(atPath: configured) ? configured : nil }
        if let folder = SearchPath.executableFolder {
            let beside = folder + "/" + name
            if manager.isExecutableFile(atPath: beside) { return beside }
        }
        if let named = environment[variable], !named.isEmpty, manager.isExecutableFile(atPath: named) {
            return named
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + name
            if manager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
