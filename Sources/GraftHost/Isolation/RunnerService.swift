import CGraftSystem
import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The runner child's side (`graft-child serve`): a host of its own, in
/// process, that maps the plugins its parent sends (with their open
/// descriptors) and serves calls on them: create, render, interact, update,
/// state, destroy, validate, actions. A plugin that crashes, hangs or
/// allocates without bound takes down this process only; the parent reports
/// it and starts another. Requests are served one at a time, in order;
/// events a component emits go back before the answer to the call that
/// caused them.
package enum RunnerService {
    struct Settings {
        var outputLimit = 4 << 20
        var memoryLimit: UInt64?
    }

    static func serve(arguments: ArraySlice<String>) -> Never {
        var settings = Settings()
        var rest = arguments
        while let option = rest.popFirst() {
            switch option {
            case "--output-limit": settings.outputLimit = rest.popFirst().flatMap { Int($0) } ?? settings.outputLimit
            case "--memory-limit": settings.memoryLimit = rest.popFirst().flatMap { UInt64($0) }
            default: break
            }
        }
        // Said before the limit is set: the reporter's own stack is allocated here.
        _ = graft_report_peak_on_crash()
        if let limit = settings.memoryLimit { _ = graft_limit_address_space(limit) }
        guard ChildChannel.sayHello() else { ScannerService.finish() }

        var server = Server(settings: settings)
        var channel = ChildChannel()
        // A create's answer waits for the render sent behind it (one write,
        // one wake-up of the host for both); if this child dies rendering,
        // the host creates again on a new one and reports the render's failure.
        var held: [UInt8] = []
        while let (header, payload, descriptor) = channel.next() {
            var reader = WireReader(payload)
            let answer: (Wire.Kind, [UInt8])
            Outbox.shared.begin()
            do throws(GraftError) {
                answer = try server.handle(header.kind, &reader, descriptor: descriptor)
            } catch {
                var writer = WireWriter()
                writer.error(error)
                answer = (.failed, writer.bytes)
            }
            // The events of the call, then its answer: one write, one wake-up.
            var bytes = held + Outbox.shared.end()
            held = []
            bytes += Wire.frame(answer.0, id: header.id, payload: answer.1)
            if answer.0 == .created, channel.nextIsRenderOfJustCreated {
                held = bytes
                continue
            }
            if !ChildChannel.send(bytes) { break }
        }
        ScannerService.finish()
    }

    struct Server {
        let settings: Settings
        /// One host per plugin loaded here: plugins sharing a runner never
        /// see each other, and a new build of a plugin (hot swap) loads beside
        /// the old one while its instances move.
        var slots: [GraftHost] = []
        var instances: [UInt32: ComponentInstance] = [:]
        var nextInstance: UInt32 = 0
        /// The instance the last create made, while no other request came
        /// between (`Wire.justCreated`).
        var justCreated: UInt32?
        let logger = Logger(label: "graft.runner", factory: { StreamLogHandler.standardError(label: $0) })

        init(settings: Settings) {
            self.settings = settings
        }

        func host(_ slot: UInt32) throws(GraftError) -> GraftHost {
            guard Int(slot) < slots.count else { throw GraftError(.pluginNotFound, "no plugin in slot \(slot) of this runner.") }
            return slots[Int(slot)]
        }

        private func malformed(_ violation: Wire.Violation) -> GraftError {
            GraftError(.invalidConfig, "the host sent a malformed request: \(violation.description).")
        }

        func instance(_ number: UInt32) throws(GraftError) -> ComponentInstance {
            guard let instance = instances[number] else {
                throw GraftError(.instanceCreateFailed, "no instance \(number) in this runner.")
            }
            return instance
        }

        /// The answer to one request: its kind and payload.
        mutating func handle(_ kind: Wire.Kind, _ reader: inout WireReader, descriptor: Int32) throws(GraftError) -> (Wire.Kind, [UInt8]) {
            let previous = justCreated
            justCreated = nil
            do {
                if let answer = try serveInstanceCall(kind, &reader, justCreated: previous) { return answer }
                switch kind {
                case .load: return try serveLoad(&reader, descriptor: descriptor)
                case .validate: return try serveValidate(&reader)
                case .action: return try serveAction(&reader)
                default:
                    throw GraftError(.invalidConfig, "the runner does not serve \(kind) requests.")
                }
            } catch let error as GraftError {
                throw error
            } catch let violation as Wire.Violation {
                throw malformed(violation)
            } catch {
                throw GraftError(.invalidConfig, "the runner failed: \(error).")
            }
        }
    }
}

/// Events emitted while the serving thread handles a call wait here and
/// leave with the call's answer; one emitted from another thread (a plugin's
/// own) leaves at once.
final class Outbox: @unchecked Sendable {
    static let shared = Outbox()
    // Guarded by `lock`.
    private let lock = Lock()
    private var bytes: [UInt8] = []
    private var serving: pthread_t?

    func begin() {
        lock.lock()
        serving = pthread_self()
        lock.unlock()
    }

    func end() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        serving = nil
        defer { bytes = [] }
        return bytes
    }

    func emit(_ frame: [UInt8]) {
        lock.lock()
        if let serving, pthread_equal(serving, pthread_self()) != 0 {
            bytes += frame
            lock.unlock()
            return
        }
        lock.unlock()
        _ = ChildChannel.send(frame)
    }
}

extension GraftHost {
    /// In the runner child: maps a file the parent has already checked and
    /// scanned, and registers it.
    func loadInRunner(_ file: PluginFile, mapping: PluginLoader.Mapping) throws(GraftError) -> LoadedPlugin {
        let plugin = try loader.load(file, mapping: mapping, images: images)
        try register(plugin, file: file)
        return plugin
    }
}
