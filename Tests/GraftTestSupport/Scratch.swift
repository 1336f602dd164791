import Foundation

/// A temporary folder removed when the test's scope ends.
public struct Scratch: ~Copyable {
    public let url: URL

    public init() throws { url = try Fixtures.temporaryFolder() }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

extension Fixtures {
    /// The `// expect: CODE` line at the top of a fixture's source.
    public static func expectedCode(of name: String) throws -> String {
        let text = try String(contentsOf: source(name), encoding: .utf8)
        for line in text.split(separator: "\n").prefix(10) where line.hasPrefix("// expect:") {
            return line.dropFirst("// expect:".count).trimmingCharacters(in: .whitespaces)
        }
        throw BuildError(description: "fixture \(name) has no '// expect:' line")
    }

    /// Every fixture name in Tests/Fixtures/plugins, sorted.
    public static var all: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sourceFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".c") }.map { String($0.dropLast(2)) }.sorted()
    }
}
