import ArgumentParser
import Foundation
import GraftHost
import Synchronization

struct Try: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a component from its debugConfig (or --config), render it, and print the output, warnings and emitted events.")

    @Argument(help: ArgumentHelp("The component, as KEY or KEY@VERSION.", valueName: "key[@version]"))
    var component: String

    @Option(help: ArgumentHelp("Inputs as a JSON object, instead of the component's debugConfig.", valueName: "json"))
    var config: String?

    @Option(
        name: .customLong("interact"),
        help: ArgumentHelp("Simulate a user interaction before rendering, as ACTION or ACTION:JSON (repeatable).", valueName: "action"))
    var interactions: [String] = []

    @Flag(help: "Ask for text/html instead of text/plain.")
    var html = false

    @Option(help: "Container width in points (0 = unbounded).")
    var width: Double = 0

    @Option(help: "Container height in points (0 = unbounded).")
    var height: Double = 0

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let host = options.makeHost()
        let emitted = Mutex<[EmittedEvent]>([])
        let rendering: Rendering
        let instance: ComponentInstance
        do throws(GraftError) {
            let reference = try ComponentReference(parsing: component)
            let registered = try host.resolve(reference)
            var inputs = registered.contract.debugConfig
            if let config {
                guard let object = try GraftValue(json: config).objectValue else {
                    throw GraftError(.invalidConfig, "--config must be a JSON object of inputs.")
                }
                inputs = object
            }
            instance = try host.makeInstance(
                of: reference, inputs: inputs, containerSize: ContainerSize(width: width, height: height),
                onEvent: { event in emitted.withLock { $0.append(event) } })
            for interaction in interactions {
                let (action, data) = try Self.parse(interaction: interaction)
                if !instance.interact(action, data: data) {
                    instance.close()
                    throw GraftError(
                        .invalidConfig, "\(registered.contract.reference) does not know the interaction '\(action)'.",
                        key: registered.contract.key)
                }
            }
            rendering = try instance.render(as: html ? .html : .plain)
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: error.code == .invalidConfig ? 2 : 1)
        }
        defer { instance.close() }
        let events = emitted.withLock { $0 }
        let warnings = instance.warnings
        let contract = instance.component.contract

        if options.json {
            Output.json(.object([
                "key": .string(contract.key),
                "version": .number(Double(contract.version)),
                "plugin": .string(instance.component.pluginID),
                "mediaType": .string(rendering.mediaType.rawValue),
                "output": .string(rendering.text),
                "warnings": .list(warnings.map(\.json)),
                "emitted": .list(events.map { event in
                    .object([
                        "instance": .string(event.instanceID), "event": .string(event.event),
                        "payload": event.payload ?? .null, "warnings": .list(event.warnings.map(\.json)),
                    ])
                }),
            ]))
            return
        }
        Output.line("\(contract.reference) from \(instance.component.pluginID) (\(instance.component.pluginPath))")
        Output.line("inputs: \(GraftValue.object(instance.inputs).jsonText)")
        Output.line("--- \(rendering.mediaType) ---")
        Output.line(rendering.text)
        Output.line("---")
        if !events.isEmpty {
            Output.line("emitted:")
            for event in events { Output.line("  \(event.event) \(event.payload?.jsonText ?? "(no payload)")") }
        }
        if !warnings.isEmpty {
            Output.line("warnings:")
            for warning in warnings { Output.line("  \(warning.code.rawValue): \(warning.message)") }
        }
    }

    /// `ACTION` or `ACTION:JSON`.
    static func parse(interaction: String) throws(GraftError) -> (String, GraftValue?) {
        guard let colon = interaction.firstIndex(of: ":") else { return (interaction, nil) }
        let action = String(interaction[..<colon])
        let data = try GraftValue(json: String(interaction[interaction.index(after: colon)...]))
        return (action, data)
    }
}
