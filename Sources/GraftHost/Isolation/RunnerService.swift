import CGraftSystem
import FoundationEssentials
import GraftSupport
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The runner child's side (`graft-child serve`): a host of its own, in
/// process, that maps the plugins its parent sends (with their open
/// descriptors) and serves calls on them: create, render, interact, update,
/// state, destroy, validate, actions. A plugin that crashes, hangs or
/// allocates without bound takes down this process only; the parent reports
/// it and starts another. Calls about one instance are served one at a time,
/// in order; all others at once (`RunnerLanes`). Events a component emits go
/// back before the answer to the call that caused them.
enum RunnerService {
    struct Settings {
        var outputLimit = 4 << 20
        var memoryLimit: UInt64?

        init() {}

        /// From `graft-child serve`'s options.
        init<Arguments: Collection<String>>(arguments: Arguments) {
            var rest = ArraySlice(arguments)
            while let option = rest.popFirst() {
                switch option {
                case "--output-limit": outputLimit = rest.popFirst().flatMap { Int($0) } ?? outputLimit
                case "--memory-limit": memoryLimit = rest.popFirst().flatMap { UInt64($0) }
                default: break
                }
            }
        }
    }

    static func serve(arguments: ArraySlice<String>) -> Never {
        let settings = Settings(arguments: arguments)
        // Said before the limit is set: the reporter's own stack is allocated here.
        _ = graft_report_peak_on_crash()
        // A ThreadSanitizer build (Tests/Scripts/tsan.sh defines THREAD_SANITIZER)
        // reserves terabytes of shadow memory: under an address-space limit its
        // runtime fails at its next mapping.
        #if !THREAD_SANITIZER
        if let limit = settings.memoryLimit { _ = graft_limit_address_space(limit) }
        #endif
        guard ChildChannel.sayHello() else { ChildMain.finish() }

        let server = Server(settings: settings, outbox: Outbox(sendingAtOnce: { _ = ChildChannel.send($0) }))
        var channel = ChildChannel()
        // The number this reader gave the last create: a render sent behind
        // it (`Wire.justCreated`) is about that instance, and waits in its lane.
        var lastCreated: UInt32?
        // Called by whichever thread holds the reader's role, one at a time.
        let lanes = RunnerLanes(next: {
            guard let request = channel.next() else { return nil }
            var requests = [request]
            let (lane, created) = server.place(request, lastCreated: &lastCreated)
            // The render sent behind a create, when it is here already: served
            // with it, both answers in one write (one wake-up of the host).
            // If this child dies rendering, the host creates again on a new
            // one and reports the render's failure.
            if request.header.kind == .create, channel.nextIsRenderOfJustCreated, let render = channel.next() { requests.append(render) }
            return (lane, {
                if !ChildChannel.send(server.serve(requests, created: created)) { ChildMain.finish() }
            })
        }, end: { ChildMain.finish() })
        lanes.serve()
    }

    final class Server: @unchecked Sendable {
        let settings: Settings
        // Guarded by `lock`.
        private let lock = Lock()
        /// One host per plugin loaded here: plugins sharing a runner never
        /// see each other, and a new build of a plugin (hot swap) loads beside
        /// the old one while its instances move.
        private var slots: [GraftHost] = []
        private var instances: [UInt32: ComponentInstance] = [:]
        private var nextInstance: UInt32 = 0
        let logger = Logger(label: "graft.runner", factory: { StreamLogHandler.standardError(label: $0) })
        /// Where events leave: with the answer of the call that emitted them, or at once.
        let outbox: Outbox

        init(settings: Settings, outbox: Outbox) {
            self.settings = settings
            self.outbox = outbox
        }

        func host(_ slot: UInt32) throws(GraftError) -> GraftHost {
            guard let host = lock.withLock({ Int(slot) < slots.count ? slots[Int(slot)] : nil }) else {
                throw GraftError(.pluginNotFound, "no plugin in slot \(slot) of this runner.")
            }
            return host
        }

        /// Keeps a newly loaded plugin's host; returns its slot.
        func keep(_ host: GraftHost) -> UInt32 {
            lock.withLock {
                slots.append(host)
                return UInt32(slots.count - 1)
            }
        }

        func instance(_ number: UInt32) throws(GraftError) -> ComponentInstance {
            guard let instance = lock.withLock({ instances[number] }) else {
                throw GraftError(.instanceCreateFailed, "no instance \(number) in this runner.")
            }
            return instance
        }

        /// Where a reader serves `request`: in the lane of its instance (for
        /// a create, the number it reserves here; for a render sent behind
        /// it, the same), and with the number of the last create, which
        /// `Wire.justCreated` names. `lastCreated` is the reader's own.
        func place(_ request: ChildChannel.Request, lastCreated: inout UInt32?) -> (lane: UInt32?, created: UInt32?) {
            var lane = Wire.instanceNumber(of: request.header.kind, request.payload)
            if request.header.kind == .create {
                lastCreated = reserveNumber()
                lane = lastCreated
            } else if lane == Wire.justCreated {
                lane = lastCreated
            }
            return (lane, lane == lastCreated ? lastCreated : nil)
        }

        /// A number for the instance a create will make (given by the
        /// reader, in the order creates came; never `Wire.justCreated`).
        private func reserveNumber() -> UInt32 {
            lock.withLock {
                nextInstance &+= 1
                if nextInstance == Wire.justCreated { nextInstance = 1 }
                return nextInstance
            }
        }

        func keep(_ instance: ComponentInstance, as number: UInt32) {
            lock.withLock { instances[number] = instance }
        }

        func remove(_ number: UInt32) -> ComponentInstance? {
            lock.withLock { instances.removeValue(forKey: number) }
        }

        private func malformed(_ violation: Wire.Violation) -> GraftError {
            GraftError(.invalidConfig, "the host sent a malformed request: \(violation.description).")
        }

        /// Serves `requests` in order (a create and the render behind it, or
        /// one request): each answer after the events its call emitted, all in
        /// one write. `created` is the number of the instance a create makes,
        /// which a render of `Wire.justCreated` is about.
        func serve(_ requests: [ChildChannel.Request], created: UInt32?) -> [UInt8] {
            var bytes: [UInt8] = []
            for request in requests {
                var reader = WireReader(request.payload)
                let answer: (Wire.Kind, [UInt8])
                outbox.begin()
                do throws(GraftError) {
                    answer = try handle(request.header.kind, &reader, descriptor: request.descriptor, created: created)
                } catch {
                    var writer = WireWriter()
                    writer.error(error)
                    answer = (.failed, writer.bytes)
                }
                bytes += outbox.end()
                bytes += Wire.frame(answer.0, id: request.header.id, payload: answer.1)
            }
            return bytes
        }

        /// The answer to one request: its kind and payload.
        private func handle(
            _ kind: Wire.Kind, _ reader: inout WireReader, descriptor: Int32, created: UInt32?
        ) throws(GraftError) -> (Wire.Kind, [UInt8]) {
            do {
                if let answer = try serveInstanceCall(kind, &reader, created: created) { return answer }
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

/// Events emitted while a worker serves a call wait here and leave with the
/// call's answer; one emitted from another thread (a plugin's own) leaves at
/// once.
final class Outbox: @unchecked Sendable {
    /// Where an event emitted outside any call goes (the child's channel).
    private let send: @Sendable ([UInt8]) -> Void
    // Guarded by `lock`: the events of each call being served, by the thread serving it.
    private let lock = Lock()
    private var serving: [pthread_t: [UInt8]] = [:]

    init(sendingAtOnce send: @escaping @Sendable ([UInt8]) -> Void) {
        self.send = send
    }

    func begin() {
        lock.withLock { serving[pthread_self()] = [] }
    }

    func end() -> [UInt8] {
        lock.withLock { serving.removeValue(forKey: pthread_self()) ?? [] }
    }

    func emit(_ frame: [UInt8]) {
        let kept = lock.withLock { () -> Bool in
            let thread = pthread_self()
            guard serving[thread] != nil else { return false }
            serving[thread]! += frame
            return true
        }
        if !kept { send(frame) }
    }
}

extension GraftHost {
    /// In the runner child: maps a file the parent has already checked and
    /// scanned, and registers it.
    func loadInRunner(_ file: PluginFile, mapping: PluginLoader.ImageSource) throws(GraftError) -> LoadedPlugin {
        let plugin = try loader.load(file, mapping: mapping, images: images)
        try register(plugin, file: file)
        return plugin
    }
}
