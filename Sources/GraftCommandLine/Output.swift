import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost
import GraftSupport

/// A failure a command reports and exits with: `error: CODE: message` on
/// stderr, and in `--json` mode an `{"error": …}` object on stdout too.
package struct CommandFailure: Error {
    /// A `GraftError.Code` (the command failed in the host) or a `CommandLineError.Code`.
    package var code: String
    package var message: String
    package var json: Bool
    package var exitCode: Int32 = 2

    package init(error: GraftError, json: Bool, exitCode: Int32 = 2) {
        self.init(code: error.code.rawValue, message: error.message, json: json, exitCode: exitCode)
    }

    package init(error: CommandLineError, json: Bool, exitCode: Int32 = 2) {
        self.init(code: error.code.rawValue, message: error.message, json: json, exitCode: exitCode)
    }

    private init(code: String, message: String, json: Bool, exitCode: Int32) {
        self.code = code
        self.message = message
        self.json = json
        self.exitCode = exitCode
    }

    package func report() {
        writeToStandardError("error: \(code): \(message)\n")
        if json {
            Output.json(.object(["error": .object(["code": .string(code), "message": .string(message)])]))
        }
    }
}

/// What only the command line refuses (an argument naming nothing, a
/// companion executable that is missing, a project folder in the way): its
/// own codes, each in the Errors article's table of them. What fails in the
/// host is a `GraftError`.
package struct CommandLineError: Error, Sendable {
    package enum Code: String, Sendable, CaseIterable {
        case pluginPathNotFound = "plugin_path_not_found"
        case workbenchNotFound = "workbench_not_found"
        case benchNotFound = "bench_not_found"
        case projectExists = "project_exists"
        case graftPackageNotFound = "graft_package_not_found"
        case accessibilityUnavailable = "accessibility_unavailable"
    }

    package var code: Code
    package var message: String
    /// The file or folder the message names.
    package var path: String?

    package init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }
}

package enum Output {
    package static func line(_ text: String) {
        print(text)
    }

    package static func json(_ value: GraftValue) {
        print(value.jsonText)
    }

    package static func error(_ error: GraftError) {
        writeToStandardError("error: \(error.code.rawValue): \(error.message)\n")
    }

    package static func warning(_ warning: GraftWarning) {
        writeToStandardError("warning: \(warning.code.rawValue): \(warning.message)\n")
    }
}

extension GraftWarning {
    package var json: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let instanceID { object["instance"] = .string(instanceID) }
        return .object(object)
    }
}

extension GraftError {
    package var json: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let path { object["path"] = .string(path) }
        if let key { object["key"] = .string(key) }
        if let symbol { object["symbol"] = .string(symbol) }
        return .object(object)
    }
}
