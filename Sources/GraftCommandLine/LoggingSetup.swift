import Logging
import Synchronization

/// The CLI chooses the log handler (stderr) and level once per process.
package enum LoggingSetup {
    private static let done = Mutex(false)

    package static func bootstrap(level: Logger.Level) {
        done.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}
