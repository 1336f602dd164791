import CGraftSystem
import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The runner child's side (`graft-scanner serve`): a host of its own, in
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

    private struct Server {
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

        private func host(_ slot: UInt32) throws(GraftError) -> GraftHost {
            guard Int(slot) < slots.count else { throw GraftError(.pluginNotFound, "no plugin in slot \(slot) of this runner.") }
            return slots[Int(slot)]
        }

        private func malformed(_ violation: Wire.Violation) -> GraftError {
            GraftError(.invalidConfig, "the host sent a malformed request: \(violation.description).")
        }

        private func instance(_ number: UInt32) throws(GraftError) -> ComponentInstance {
            guard let instance = instances[number] else {
                throw GraftError(.instanceCreateFailed, "no instance \(number) in this runner.")
            }
            return instance
        }

        /// The answer to one request: its kind and payload.
        mutating func handle(_ kind: Wire.Kind, _ reader: inout WireReader, descriptor: Int32) throws(GraftError) -> (Wire.Kind, [UInt8]) {
            var writer = WireWriter()
            let previous = justCreated
            justCreated = nil
            do {
                switch kind {
                case .load:
                    let path = try reader.string(), realPath = try reader.string(), copy = try reader.bool()
                    guard descriptor >= 0 else { throw GraftError(.pluginNotFound, "\(path) arrived without its descriptor.", path: path) }
                    let file = try PluginFile(adopting: descriptor, path: path, realPath: realPath)
                    let host = GraftHost(
                        configuration: GraftConfiguration(
                            searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, mapping: .atStart),
                        logger: logger)
                    let plugin = try host.loadInRunner(file, mapping: ChildSandbox.mapping(copy: copy))
                    slots.append(host)
                    writer.u32(UInt32(slots.count - 1))
                    // What it declares here: the host holds it to what the scan saw.
                    writer.plugin(plugin.info)
                    return (.loaded, writer.bytes)

                case .create:
                    let host = try host(try reader.u32())
                    let key = try reader.string(), version = Int(try reader.u32())
                    guard case .object(let inputs) = try reader.value() else { throw Wire.Violation(description: "inputs that are not an object") }
                    let size = ContainerSize(width: try reader.f64(), height: try reader.f64())
                    nextInstance &+= 1
                    let number = nextInstance
                    let instance = try host.makeInstance(
                        of: ComponentReference(key: key, version: version), id: String(number), inputs: inputs,
                        containerSize: size,
                        onEvent: { event in
                            var writer = WireWriter()
                            writer.u32(number)
                            writer.string(event.event)
                            writer.bool(event.payload != nil)
                            if let payload = event.payload { writer.value(payload) }
                            writer.warnings(event.warnings)
                            Outbox.shared.emit(Wire.frame(.emitted, id: 0, payload: writer.bytes))
                        })
                    instances[number] = instance
                    justCreated = number
                    writer.u32(number)
                    writer.warnings(instance.takeWarnings())
                    return (.created, writer.bytes)

                case .render:
                    let number = try reader.u32()
                    let instance = try instance(number == Wire.justCreated ? previous ?? number : number)
                    let mediaType = MediaType(rawValue: try reader.string())
                    let (rendering, overflowed) = try instance.render(as: mediaType, outputLimit: settings.outputLimit)
                    if overflowed {
                        throw GraftError(
                            .outputTooLarge,
                            "\(instance.component.contract.reference) wrote more than \(settings.outputLimit) bytes in one render; the output was refused.",
                            key: instance.component.contract.key)
                    }
                    writer.string(rendering.mediaType.rawValue)
                    writer.string(rendering.text)
                    writer.warnings(instance.takeWarnings())
                    return (.rendered, writer.bytes)

                case .interact:
                    let instance = try instance(try reader.u32())
                    let action = try reader.string()
                    let data = try reader.bool() ? try reader.value() : nil
                    writer.bool(instance.interact(action, data: data))
                    writer.warnings(instance.takeWarnings())
                    return (.answer, writer.bytes)

                case .update:
                    let instance = try instance(try reader.u32())
                    guard case .object(let inputs) = try reader.value() else { throw Wire.Violation(description: "inputs that are not an object") }
                    try instance.update(inputs: inputs)
                    writer.bool(true)
                    writer.warnings(instance.takeWarnings())
                    return (.answer, writer.bytes)

                case .saveState:
                    let state = try instance(try reader.u32()).saveState()
                    writer.bool(state != nil)
                    if let state {
                        writer.u32(UInt32(state.count))
                        writer.bytes += state
                    }
                    return (.state, writer.bytes)

                case .loadState:
                    let instance = try instance(try reader.u32())
                    let count = Int(try reader.u32())
                    writer.bool(instance.loadState(Array(try reader.raw(count))))
                    writer.warnings(instance.takeWarnings())
                    return (.answer, writer.bytes)

                case .destroy:
                    let number = try reader.u32()
                    instances.removeValue(forKey: number)?.close()
                    writer.bool(true)
                    writer.warnings([])
                    return (.answer, writer.bytes)

                case .resize:
                    let instance = try instance(try reader.u32())
                    instance.containerSize = ContainerSize(width: try reader.f64(), height: try reader.f64())
                    writer.bool(true)
                    writer.warnings([])
                    return (.answer, writer.bytes)

                case .validate:
                    let host = try host(try reader.u32())
                    let name = try reader.string(), value = try reader.value()
                    let params = try reader.list { (reader) throws(Wire.Violation) in try reader.string() }
                    let result = try host.validate(name, value: value, params: params)
                    writer.bool(result.isValid)
                    writer.optional(result.message)
                    return (.validated, writer.bytes)

                case .action:
                    let host = try host(try reader.u32())
                    let key = try reader.string()
                    let params = try reader.value()
                    let payload = try reader.bool() ? try reader.value() : nil
                    let result = try host.invokeAction(key, params: params.objectValue ?? [:], payload: payload)
                    writer.bool(result.ok)
                    writer.optional(result.error)
                    writer.value(.object(result.variables))
                    writer.bool(result.result != nil)
                    if let value = result.result { writer.value(value) }
                    return (.acted, writer.bytes)

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
