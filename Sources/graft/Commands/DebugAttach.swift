import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftDebugger
import GraftCommandLine
import GraftHost
import GraftSupport

struct DebugAttach: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Attach to a running host's debug endpoint: list its plugins, read or follow its action log, try a component in its sandbox.",
        discussion: """
            With --follow, records are printed as they happen until the host closes the \
            endpoint or you press Ctrl-C. --json prints the host's JSON: the report, one \
            log record per line, or the sandbox result. The protocol is documented in \
            Sources/GraftDebugger/Documentation.docc/DebugProtocol.md.
            """)

    enum What: String, ExpressibleByArgument, CaseIterable {
        case plugins, log, `try`
    }

    @Argument(help: ArgumentHelp("The host's debug socket.", valueName: "socket"))
    var socket: String

    @Argument(help: ArgumentHelp("What to do: plugins, log or try.", valueName: "plugins|log|try"))
    var what: What

    @Argument(help: ArgumentHelp("For try: the component, as KEY or KEY@VERSION.", valueName: "key[@version]"))
    var component: String?

    @Flag(help: "log: keep printing new records as they happen.")
    var follow = false

    @Option(help: "log: how many of the newest records to print first (default: 20, or 0 with --follow).")
    var last: Int?

    @Option(help: ArgumentHelp("log: only records of this plugin id.", valueName: "id"))
    var plugin: String?

    @Option(name: .customLong("component"), help: ArgumentHelp("log: only records of this component (KEY: any version).", valueName: "key[@version]"))
    var componentFilter: String?

    @Option(help: ArgumentHelp("log: only records of this instance. try: the host flow's instance whose wiring to show.", valueName: "id"))
    var instance: String?

    @Option(help: ArgumentHelp("log: only records of this event.", valueName: "name"))
    var event: String?

    @Option(help: ArgumentHelp("try: inputs as a JSON object, instead of the debugConfig.", valueName: "json"))
    var config: String?

    @Option(name: .customLong("interact"), help: ArgumentHelp("try: a user interaction, ACTION or ACTION:JSON (repeatable).", valueName: "action"))
    var interactions: [String] = []

    @Option(name: .customLong("emit"), help: ArgumentHelp("try: an event as if the component emitted it, EVENT or EVENT:JSON (repeatable).", valueName: "event"))
    var emits: [String] = []

    @Flag(help: "try: ask for text/html instead of text/plain.")
    var html = false

    @Flag(help: "Print the host's JSON instead of text.")
    var json = false

    func validate() throws {
        if what == .try, component == nil { throw ValidationError("try needs the component: graft debug attach SOCKET try KEY[@V].") }
        if what != .try, component != nil { throw ValidationError("only try takes a component.") }
        if let last, last < 0 { throw ValidationError("--last must be 0 or more.") }
    }

    func run() throws {
        do throws(GraftError) {
            let client = try DebugClient(socketPath: socket)
            defer { client.close() }
            try client.hello()
            switch what {
            case .plugins: try plugins(client)
            case .log: try log(client)
            case .try: try sandbox(client)
            }
        } catch {
            let reported: Set<GraftError.Code> = [.customComponentNotFound, .componentVersionMismatch, .renderFailed, .instanceCreateFailed]
            throw CommandFailure(error: error, json: json, exitCode: reported.contains(error.code) ? 1 : 2)
        }
    }

    private func plugins(_ client: DebugClient) throws(GraftError) {
        let report = try client.request(["request": "plugins"])["report"] ?? .null
        Output.line(json ? report.jsonText : PluginReport.debuggerText(fromJSON: report))
    }

    private func log(_ client: DebugClient) throws(GraftError) {
        let filter = ActionLogFilter(pluginID: plugin, component: componentFilter, instance: instance, event: event)
        let count = last ?? (follow ? 0 : 20)
        if !follow {
            let answer = try client.request(["request": "tail", "last": .number(Double(count)), "filter": filter.json])
            for record in answer["records"]?.listValue ?? [] { try print(record) }
            return
        }
        _ = try client.request(["request": "follow", "last": .number(Double(count)), "filter": filter.json])
        while let line = try client.nextStreamed(timeout: nil) {
            if let skipped = line["skipped"]?.numberValue {
                writeToStandardError("note: \(Int(skipped)) records were dropped before they could be shown (the log's ring is full)\n")
            }
            // Written unbuffered, so each record shows as it comes, also into a pipe.
            if let record = line["record"] { writeToStandardOutput((try text(of: record) + "\n")) }
        }
    }

    private func print(_ record: GraftValue) throws(GraftError) {
        Output.line(try text(of: record))
    }

    private func text(of record: GraftValue) throws(GraftError) -> String {
        json ? record.jsonText : try ActionLogRecord(json: record).text
    }

    private func sandbox(_ client: DebugClient) throws(GraftError) {
        var request: [String: GraftValue] = ["request": "try", "component": .string(component ?? "")]
        if let inputs = try DryRunSteps.inputs(fromConfig: config) { request["config"] = .object(inputs) }
        if let instance { request["instance"] = .string(instance) }
        if html { request["html"] = true }
        var interact: [GraftValue] = []
        var emit: [GraftValue] = []
        for step in try DryRunSteps.parse(interactions: interactions, emits: emits) {
            switch step {
            case .interact(let action, let data): interact.append(.object(["action": .string(action), "data": data ?? .null]))
            case .emit(let event, let payload): emit.append(.object(["event": .string(event), "payload": payload ?? .null]))
            }
        }
        request["interact"] = .list(interact)
        request["emit"] = .list(emit)
        let result = try client.request(request)["result"] ?? .null
        Output.line(json ? result.jsonText : try DryRunResult(json: result).text)
    }
}
