import FoundationEssentials
import GraftHost

/// What travels between the conformance checker and a test's child
/// (`ChildJob`), as JSON: the checker's own format, which nothing else reads.
struct ConformanceJob: Codable {
    var test: String
    var path: String
    var realPath: String
}

/// What a test's child says before each call that may crash or hang.
struct ConformanceStep: Codable {
    var key: String
    var what: String
}

/// A test's answer.
struct ConformanceVerdict: Sendable, Codable {
    var findings: [ConformanceFinding] = []
    var notes: [String] = []
    var skipReason: String?
}


extension Encodable {
    /// As JSON bytes, for a `ChildJob`; these types always encode.
    var jobBytes: [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }
}

extension Decodable {
    /// From a `ChildJob`'s JSON bytes; nil when they do not decode.
    init?(jobBytes bytes: [UInt8]) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(bytes)) else { return nil }
        self = decoded
    }
}
