import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Graft's helper executables (`graft-child`, `graft-workbench`) are found
/// the same way: the caller's setting, else beside the running executable
/// (where `swift build` and the installer put them), else the environment
/// variable that names one, else the first on `PATH` (absolute folders only:
/// a relative entry would depend on the current directory).
package enum CompanionExecutable {
    package static func find(
        named name: String, variable: String, configured: String? = nil, environment: [String: String]? = nil
    ) -> String? {
        if let configured { return isExecutableFile(configured) ? configured : nil }
        if let folder = SearchPath.executableFolder {
            let beside = folder + "/" + name
            if isExecutableFile(beside) { return beside }
        }
        if let named = ProcessEnvironment.value(variable, in: environment), !named.isEmpty, isExecutableFile(named) {
            return named
        }
        for folder in (ProcessEnvironment.value("PATH", in: environment) ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + name
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// A regular file this process may execute.
    static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
