import FoundationEssentials

/// Where the scanner executable is: the host's setting, else beside the
/// running executable, else `GRAFT_SCANNER`, else the first `graft-scanner`
/// on `PATH` (see `CompanionExecutable`).
package enum ScannerLocation {
    static let executableName = "graft-scanner"

    package static func find(configured: String?, environment: [String: String]? = nil) -> String? {
        CompanionExecutable.find(named: executableName, variable: "GRAFT_SCANNER", configured: configured, environment: environment)
    }
}
