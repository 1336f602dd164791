import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftFlows
import GraftCommandLine
import GraftHost

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a flow without an app: render its screens through the real plugins, apply events, run the wired actions.",
        discussion: """
            Events come from --events, or from standard input without it, one JSON object per line:
              {"instance": "ID", "event": "NAME", "payload": {...}}    as if the component emitted it
              {"instance": "ID", "interact": "ACTION", "data": {...}}  calls the component's interact(ACTION)
            Blank lines are skipped; reading stops when the flow closes. Prints the transcript (renders,
            events, actions, validations, warnings, variable changes, navigation) and the final variables.
            Exits 0 when the run completes, warnings included; 2 when the flow or an event line cannot be read.
            """)

    @Argument(help: ArgumentHelp("The flow document.", valueName: "flow.json"))
    var flow: String

    @Option(help: ArgumentHelp("The events to apply, one JSON object per line (default: standard input).", valueName: "events.jsonl"))
    var events: String?

    @Option(help: "Container width in points for every instance (default: the screen's or the flow's size; 0 = unbounded).")
    var width: Double?

    @Option(help: "Container height in points for every instance (default: the screen's or the flow's size; 0 = unbounded).")
    var height: Double?

    @Flag(help: "Ask for text/html instead of text/plain.")
    var html = false

    @Flag(help: "Include each transcript entry's time in --json output.")
    var timestamps = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let document = try FlowLoading.document(at: flow, json: options.json)
        let lines = try eventLines()
        let host = options.makeHost()
        let size = width == nil && height == nil ? nil : ContainerSize(width: width ?? 0, height: height ?? 0)
        let printsLive = !options.json
        let runner = FlowRunner(
            host: host, flow: document, containerSize: size, mediaType: html ? .html : .plain,
            observer: { entry in
                guard printsLive else { return }
                for line in TranscriptText.lines(entry) { Output.line(line) }
            })
        do throws(GraftError) {
            try runner.start()
            while let (number, line) = try lines.next() {
                if runner.isClosed { break }
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                let event: FlowEvent
                do {
                    event = try FlowEvent(json: line)
                } catch {
                    throw GraftError(error.code, "\(events ?? "stdin"):\(number): \(error.message)")
                }
                try runner.send(event)
            }
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 2)
        }
        if options.json {
            Output.json(runner.json(includingTimestamps: timestamps))
            return
        }
        Output.line(runner.isClosed ? "flow closed" : "flow ended on screen \(runner.currentScreen ?? "")")
        Output.line("variables:")
        for name in runner.variables.keys.sorted() {
            Output.line("  \(name) = \(runner.variables[name]?.jsonText ?? "null")")
        }
        let warnings = runner.warnings.count
        if warnings > 0 { Output.line("\(warnings) warning\(warnings == 1 ? "" : "s")") }
    }

    /// The lines of the events file, or of standard input, read as they come
    /// so a person can type events one at a time and see what each does.
    private func eventLines() throws -> InputLines {
        guard let events else { return InputLines() }
        do throws(GraftError) {
            return try InputLines(path: events)
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 2)
        }
    }
}
