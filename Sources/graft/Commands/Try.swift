import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftCommandLine
import GraftHost

struct Try: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "try",
        abstract: "Create a component from its debugConfig (or --config), render it, and print the output, warnings and the actions called.",
        discussion: """
            Runs in the debugger's sandbox: every event the component emits (while being created, during an \
            --interact, while rendering) and every --emit is recorded under "Actions called", with its warnings. \
            With --flow and --instance, the actions the flow wires to each event are listed too, with their \
            params resolved against the payload and the flow's initial variables; they are recorded, not run.
            """)

    @Argument(help: ArgumentHelp("The component, as KEY or KEY@VERSION.", valueName: "key[@version]"))
    var component: String

    @Option(help: ArgumentHelp("Inputs as a JSON object, instead of the component's debugConfig.", valueName: "json"))
    var config: String?

    @Option(help: ArgumentHelp("A story the component declares: its inputs, instead of the debugConfig (graft inspect lists them).", valueName: "name"))
    var story: String?

    @Option(
        name: .customLong("interact"),
        help: ArgumentHelp("Simulate a user interaction before rendering, as ACTION or ACTION:JSON (repeatable).", valueName: "action"))
    var interactions: [String] = []

    @Option(
        name: .customLong("emit"),
        help: ArgumentHelp(
            "Simulate an event as if the component emitted it, as EVENT or EVENT:JSON (repeatable; after the interactions). It is checked against the component's contract.",
            valueName: "event"))
    var emits: [String] = []

    @Option(help: ArgumentHelp("A flow document whose wiring shows which actions each event would run (with --instance).", valueName: "flow.json"))
    var flow: String?

    @Option(help: ArgumentHelp("The flow's instance of this component: its bindings become the inputs and its wiring is listed.", valueName: "id"))
    var instance: String?

    @Flag(help: "Ask for text/html instead of text/plain.")
    var html = false

    @Option(help: "Container width in points (0 = unbounded).")
    var width: Double = 0

    @Option(help: "Container height in points (0 = unbounded).")
    var height: Double = 0

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if instance != nil, flow == nil { throw ValidationError("--instance needs --flow.") }
        if story != nil, config != nil || instance != nil { throw ValidationError("--story gives the inputs: leave out --config and --instance.") }
    }

    func run() throws {
        let host = options.makeHost()
        let result: DryRunResult
        do throws(GraftError) {
            let wiring = try flow.map { path throws(GraftError) in try FlowWiring(contentsOf: URL(fileURLWithPath: path)) }
            let reference = try ComponentReference(parsing: component)
            var inputs = try DryRunSteps.inputs(fromConfig: config)
            if let story { inputs = try storyInputs(story, of: reference, in: host) }
            let request = DryRunRequest(
                component: reference, inputs: inputs,
                instance: instance, steps: try DryRunSteps.parse(interactions: interactions, emits: emits),
                mediaType: html ? .html : .plain, containerSize: ContainerSize(width: width, height: height))
            result = try DryRun(host: host, flow: wiring).run(request)
        } catch {
            let usage: Set<GraftError.Code> = [.invalidConfig, .invalidFlow, .unknownInstance]
            throw CommandFailure(error: error, json: options.json, exitCode: usage.contains(error.code) ? 2 : 1)
        }
        if options.json {
            Output.json(result.json)
        } else {
            Output.line(result.text)
        }
    }

    /// The inputs of the story `name` of the component `reference` names.
    private func storyInputs(_ name: String, of reference: ComponentReference, in host: GraftHost) throws(GraftError) -> [String: GraftValue] {
        let contract = try host.resolve(reference).contract
        guard let story = contract.story(name) else {
            let known = contract.stories.map(\.name)
            throw GraftError(
                .invalidConfig,
                "\(contract.reference) has no story '\(name)'; \(known.isEmpty ? "it declares none" : "its stories: \(known.joined(separator: ", "))").",
                key: contract.reference.description)
        }
        return story.config
    }
}
