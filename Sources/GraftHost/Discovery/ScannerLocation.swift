import FoundationEssentials

/// Where the scanner executable is: the host's setting, else beside the
/// running executable, else `GRAFT_CHILD`, else the first `graft-child`
/// on `PATH` (see `CompanionExecutable`).
package enum ScannerLocation {
    static let executableName = "graft-child"

    package static func find(configured: String?, environment: [String: String]? = nil) -> String? {
        CompanionExecutable.find(named: executableName, variable: "GRAFT_CHILD", configured: configured, environment: environment)
    }
}
