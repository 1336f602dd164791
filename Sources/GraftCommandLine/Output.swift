import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// A failure a command reports and exits with: `error: CODE: message` on
/// stderr, and in `--json` mode an `{"error": …}` object on stdout too.
package struct CommandFailure: Error {
    package var error: GraftError
    package var json: Bool
    package var exitCode: Int32 = 2

    package init(error: GraftError, json: Bool, exitCode: Int32 = 2) {
        self.error = error
        self.json = json
        self.exitCode = exitCode
    }

    package func report() {
        Output.error(error)
        if json {
            Output.json(.object(["error": .object([
                "code": .string(error.code.rawValue), "message": .string(error.message),
            ])]))
        }
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
