import Dispatch
import Foundation
import GraftDebugger
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a clean exit: the debug endpoint is closed
/// (which removes its socket file), then the process exits 0.
///
/// Start it before the endpoint opens, so that a client that sees the socket
/// and stops the host at once is never ignored; hand it the endpoint once open.
final class ShutdownSignals: Sendable {
    private let endpoint = Mutex<DebugEndpoint?>(nil)
    private let sources = Mutex<[SignalSource]>([])

    /// `@unchecked Sendable`: a dispatch source is thread-safe; it is only
    /// kept here so it stays alive.
    private struct SignalSource: @unchecked Sendable {
        let source: DispatchSourceSignal
    }

    func start() {
        let created = [SIGINT, SIGTERM].map { number in
            // Dispatch can only see a signal the process does not act on itself.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [self] in exit(on: number) }
            source.resume()
            return SignalSource(source: source)
        }
        sources.withLock { $0 = created }
    }

    /// The endpoint to close before exiting.
    func closeOnExit(_ endpoint: DebugEndpoint) {
        self.endpoint.withLock { $0 = endpoint }
    }

    private func exit(on signal: Int32) {
        endpoint.withLock { $0?.close() }
        say("signal \(signal): debug endpoint closed, exiting")
        Foundation.exit(0)
    }
}
