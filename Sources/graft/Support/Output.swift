import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// A failure a command reports and exits with: `error: CODE: message` on
/// stderr, and in `--json` mode an `{"error": …}` object on stdout too.
struct CommandFailure: Error {
    var error: GraftError
    var json: Bool
    var exitCode: Int32 = 2

    func report() {
        Output.error(error)
        if json {
            Output.json(.object(["error": .object([
                "code": .string(error.code.rawValue), "message": .string(error.message),
            ])]))
        }
    }
}

enum Output {
    static func line(_ text: String) {
        print(text)
    }

    static func json(_ value: GraftValue) {
        print(value.jsonText)
    }

    static func error(_ error: GraftError) {
        writeToStandardError("error: \(error.code.rawValue): \(error.message)\n")
    }

    static func warning(_ warning: GraftWarning) {
        writeToStandardError("warning: \(warning.code.rawValue): \(warning.message)\n")
    }
}

extension GraftWarning {
    var json: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let instanceID { object["instance"] = .string(instanceID) }
        return .object(object)
    }
}

extension GraftError {
    var json: GraftValue {
        var object: [String: GraftValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let path { object["path"] = .string(path) }
        if let key { object["key"] = .string(key) }
        if let symbol { object["symbol"] = .string(symbol) }
        return .object(object)
    }
}
