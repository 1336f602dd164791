import Foundation
import Logging
@testable import GraftHost

/// A host that searches only `folder`, for tests that must not see the
/// plugins installed on the machine or built beside the test binary.
func isolatedHost(_ folders: URL...) -> GraftHost {
    GraftHost(searchPath: SearchPath(folders: folders.map(\.path)), logger: quietLogger)
}

/// Tests check errors through the API; the log would only be noise.
let quietLogger = Logger(label: "graft.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// A temporary folder removed when the test's scope ends.
struct Scratch: ~Copyable {
    let url: URL
    init() throws { url = try Fixtures.temporaryFolder() }
    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// The `// expect: CODE` line at the top of a fixture's source.
func expectedCode(ofFixture name: String) throws -> String {
    let text = try String(contentsOf: Fixtures.source(name), encoding: .utf8)
    for line in text.split(separator: "\n").prefix(10) where line.hasPrefix("// expect:") {
        return line.dropFirst("// expect:".count).trimmingCharacters(in: .whitespaces)
    }
    throw Fixtures.BuildError(description: "fixture \(name) has no '// expect:' line")
}

/// Every fixture name in Tests/Fixtures/plugins, sorted.
func allFixtureNames() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.sourceFolder.path)) ?? []
    return names.filter { $0.hasSuffix(".c") }.map { String($0.dropLast(2)) }.sorted()
}

/// Collects events emitted from any thread.
final class EventLog: Sendable {
    private let events = Mutex<[EmittedEvent]>([])
    var all: [EmittedEvent] { events.withLock { $0 } }
    var handler: @Sendable (EmittedEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

import Synchronization
