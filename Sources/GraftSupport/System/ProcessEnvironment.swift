#if canImport(Glibc)
import Glibc
#endif

/// One variable of this process's environment, read with `getenv`: asking
/// `ProcessInfo` for it copies the whole environment into a dictionary
/// first, which a short command (`graft list`) did four times.
package enum ProcessEnvironment {
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `name` from `environment` when one is given (tests, callers that pass
    /// their own), else from this process's.
    package static func value(_ name: String, in environment: [String: String]?) -> String? {
        environment.map { $0[name] } ?? value(name)
    }
}
