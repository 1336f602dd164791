import Foundation
import GraftTestSupport
import Logging
import Synchronization
@testable import GraftHost

/// A host that searches only `folders` (never the plugins installed on the
/// machine or built beside the test binary) and runs plugin code in this
/// process, for tests of what happens here: loading, the registry, calls.
/// Files are still scanned first in a sandboxed scanner child.
func inProcessHost(_ folders: URL...) -> GraftHost {
    GraftHost(
        configuration: GraftConfiguration(searchPath: SearchPath(folders: folders.map(\.path)), isolation: .inProcess),
        logger: quietLogger)
}

/// Tests check errors through the API; the log would only be noise.
let quietLogger = Logger(label: "graft.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// The `// expect: CODE` line at the top of a fixture's source.
func expectedCode(ofFixture name: String) throws -> String { try Fixtures.expectedCode(of: name) }

/// Every fixture name in Tests/Fixtures/plugins that can be loaded in this
/// process, sorted: a fixture that crashes or hangs its loader is loaded only
/// in a scanner child (see ScannerTests).
func allFixtureNames() -> [String] {
    Fixtures.all.filter { !["plugin_crashed", "plugin_timeout"].contains(try? Fixtures.expectedCode(of: $0)) }
}

/// Collects events emitted from any thread.
final class EventLog: Sendable {
    private let events = Locked<[EmittedEvent]>([])
    var all: [EmittedEvent] { events.withLock { $0 } }
    var handler: @Sendable (EmittedEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

/// A host with only the `good_echo` fixture loaded, built into `scratch`.
func echoHost(_ scratch: borrowing Scratch) throws -> GraftHost {
    let host = inProcessHost(scratch.url)
    try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
    return host
}

/// Configurations tests use when the scanner and the cache are beside the point.
enum TestConfigurations {
    static let plain = GraftConfiguration(searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil)
}

/// A logger whose records a test can read: message and metadata, any thread.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let records = Locked<[Record]>([])
    var all: [Record] { records.withLock { $0 } }

    var logger: Logger {
        Logger(label: "graft.test") { _ in Handler(log: self) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let record = Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            log.records.withLock { $0.append(record) }
        }
    }
}
