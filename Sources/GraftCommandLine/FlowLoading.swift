import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftFlows
import GraftHost

/// Reading a flow for a command: an unreadable or malformed document is a
/// usage error (exit 2) whose message names the file and the JSON path.
package enum FlowLoading {
    package static func document(at path: String, json: Bool) throws -> FlowDocument {
        do {
            return try FlowDocument(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(error: error, json: json, exitCode: 2)
        }
    }
}
