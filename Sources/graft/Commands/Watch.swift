import ArgumentParser
import Dispatch
import FoundationEssentials
import GraftFlows
import GraftCommandLine
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Render a component (or a flow), then render again after every hot swap of a rebuilt plugin.",
        discussion: """
            Watches the plugin folders (inotify). After each successful swap prints one line (plugin, old → new \
            build, time taken, instances recreated) and the new render; a failed swap is printed and the last good \
            render stays. Ctrl-C exits.
            """)

    @Argument(help: ArgumentHelp("The component, as KEY or KEY@VERSION (rendered from its debugConfig).", valueName: "key[@version]"))
    var component: String?

    @Option(help: ArgumentHelp("Run this flow instead and re-render its current screen.", valueName: "flow.json"))
    var flow: String?

    @Option(help: "Milliseconds to wait for more file events before reloading.")
    var debounce: Int = 50

    @Flag(help: "Ask for text/html instead of text/plain.")
    var html = false

    @Option(help: "Container width in points (0 = unbounded).")
    var width: Double = 0

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        guard (component == nil) != (flow == nil) else {
            throw ValidationError("Give a component (KEY[@VERSION]) or --flow FLOW.json, not both.")
        }
        guard debounce >= 0 else { throw ValidationError("--debounce must be 0 or more milliseconds.") }
    }

    func run() throws {
        let host = options.makeHost(loadsFromCopies: true)
        let document = try flow.map { try FlowLoading.document(at: $0, json: options.json) }
        var reference: ComponentReference?
        if let component {
            do throws(GraftError) {
                reference = try ComponentReference(parsing: component)
            } catch {
                throw CommandFailure(error: error, json: options.json)
            }
        }
        let watcher: PluginWatcher
        do throws(GraftError) {
            watcher = try host.watchPluginFolders(debounce: .milliseconds(debounce))
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        let mediaType: MediaType = html ? .html : .plain
        let size = ContainerSize(width: width, height: 0)
        MainActor.assumeIsolated {
            let session = WatchSession(
                host: host, reference: reference, flow: document, mediaType: mediaType, size: size, json: options.json)
            session.start()
            host.addSwapObserver { event in
                DispatchQueue.main.async { MainActor.assumeIsolated { session.handle(event) } }
            }
            let folders = watcher.folders.joined(separator: ", ")
            session.note("watching \(folders.isEmpty ? "no folder" : folders); Ctrl-C to stop")
        }
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        interrupt.setEventHandler {
            watcher.stop()
            Glibc.exit(0)
        }
        interrupt.resume()
        withExtendedLifetime((watcher, interrupt)) { dispatchMain() }
    }
}

/// What `graft watch` shows, kept on the main thread: one component instance
/// or one flow runner, rendered again after each swap.
@MainActor
final class WatchSession {
    let host: GraftHost
    let reference: ComponentReference?
    let flow: FlowDocument?
    let mediaType: MediaType
    let size: ContainerSize
    let json: Bool
    private var instance: ComponentInstance?
    private var runner: FlowRunner?

    /// HH:MM:SS, local time, for the lines a person watches.
    private static func localClock() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
    private var printed = 0

    init(host: GraftHost, reference: ComponentReference?, flow: FlowDocument?, mediaType: MediaType, size: ContainerSize, json: Bool) {
        self.host = host
        self.reference = reference
        self.flow = flow
        self.mediaType = mediaType
        self.size = size
        self.json = json
    }

    func start() {
        if let flow {
            let runner = FlowRunner(host: host, flow: flow, containerSize: size, mediaType: mediaType)
            self.runner = runner
            do throws(GraftError) {
                try runner.start()
            } catch {
                Output.error(error)
            }
            printTranscript()
        } else {
            createInstance()
            render()
        }
    }

    func handle(_ event: SwapEvent) {
        switch event.outcome {
        case .unchanged:
            // Silent, unless the running build's file came back after a rejected one.
            if event.restoresRunningBuild { note(event.summary) }
            return
        case .failed:
            note(event.summary + " (the last good render stays)")
            return
        default:
            note(event.summary)
        }
        if let runner {
            runner.rerender()
            printTranscript()
        } else {
            follow()
        }
    }

    func note(_ line: String) {
        let time = Self.localClock()
        if json {
            Output.json(.object(["time": .string(time), "note": .string(line)]))
        } else {
            Output.line("[\(time)] \(line)")
        }
        fflush(nil)  // every output stream; stdout itself is not concurrency-safe to name
    }

    /// Follows the key, not the instance: after a swap the instance is the
    /// one on the build that now provides the component. One left on a build
    /// that dropped it is closed; while no build provides it, that is said,
    /// and the build that brings it back is rendered.
    private func follow() {
        guard let reference else { return }
        let current: RegisteredComponent
        do throws(GraftError) {
            current = try host.resolve(reference)
        } catch {
            instance?.close()
            instance = nil
            note("\(reference) is not provided by any plugin now (\(error.code.rawValue)); it renders again when a build brings it back")
            return
        }
        if let instance, !instance.isClosed, instance.component === current {
            render()
            return
        }
        instance?.close()
        createInstance()
        render()
    }

    private func createInstance() {
        guard let reference else { return }
        do throws(GraftError) {
            let contract = try host.resolve(reference).contract
            instance = try host.makeInstance(of: reference, inputs: contract.debugConfig, containerSize: size)
        } catch {
            instance = nil
            note("\(error.code.rawValue): \(error.message)")
        }
    }

    private func render() {
        guard let instance else { return }
        do throws(GraftError) {
            let rendering = try instance.render(as: mediaType)
            if json {
                Output.json(.object([
                    "key": .string(instance.component.contract.key),
                    "version": .number(Double(instance.component.contract.version)),
                    "plugin": .string(instance.component.pluginID),
                    "mediaType": .string(rendering.mediaType.rawValue), "output": .string(rendering.text),
                ]))
            } else {
                Output.line("--- \(instance.component.reference) from \(instance.component.pluginID) ---")
                Output.line(rendering.text)
            }
        } catch {
            note("\(error.code.rawValue): \(error.message) (the last good render stays)")
        }
        fflush(nil)  // every output stream; stdout itself is not concurrency-safe to name
    }

    private func printTranscript() {
        guard let runner else { return }
        for entry in runner.transcript.dropFirst(printed) {
            if json {
                Output.json(entry.json(includingTime: false))
            } else {
                for line in TranscriptText.lines(entry) { Output.line(line) }
            }
        }
        printed = runner.transcript.count
        fflush(nil)  // every output stream; stdout itself is not concurrency-safe to name
    }
}
