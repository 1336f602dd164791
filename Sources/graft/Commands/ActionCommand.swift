import ArgumentParser
import GraftCommandLine
import GraftHost

struct ActionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "action",
        abstract: "Invoke a custom action with its params and the triggering event's payload.",
        discussion: """
            Params come from --params (a JSON object) and --param KEY=VALUE (repeatable; the value is read as JSON when it \
            is JSON, else as text). The action runs isolated, as every plugin call does by default.
            Exits 0 when the action succeeds, 1 when it fails (its reason is printed), 2 on error.
            """)

    @Argument(help: ArgumentHelp("The action, as NAME, NAME@VERSION or PLUGIN_ID/NAME.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("The action's params, a JSON object.", valueName: "json"))
    var params: String?

    @Option(name: .customLong("param"), help: ArgumentHelp("One param, as KEY=VALUE (repeatable; after --params).", valueName: "key=value"))
    var paramPairs: [String] = []

    @Option(help: ArgumentHelp("The triggering event's payload, as JSON.", valueName: "json"))
    var payload: String?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        for pair in paramPairs where pair.firstIndex(of: "=").map({ $0 == pair.startIndex }) ?? true {
            throw ValidationError("--param \(pair): expected KEY=VALUE.")
        }
    }

    func run() throws {
        var given: [String: GraftValue] = [:]
        let payloadValue: GraftValue?
        do throws(GraftError) {
            if let params {
                guard case .object(let object) = try GraftValue(json: params) else {
                    throw GraftError(.invalidJSON, "--params must be a JSON object; got \(params.escapingControls).")
                }
                given = object
            }
            for pair in paramPairs {
                let equals = pair.firstIndex(of: "=")!
                let text = String(pair[pair.index(after: equals)...])
                given[String(pair[..<equals])] = (try? GraftValue(json: text)) ?? .string(text)
            }
            payloadValue = try payload.map { text throws(GraftError) in try GraftValue(json: text) }
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        let host = options.makeHost()
        let action: RegisteredAction
        let result: ActionOutcome
        do throws(GraftError) {
            action = try host.action(name)
            result = try host.invokeAction(name, params: given, payload: payloadValue)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        let reference = ComponentReference(key: action.contract.key, version: action.contract.version)
        if options.json {
            Output.json(.object([
                "action": .string(reference.description), "plugin": .string(action.pluginID), "pluginPath": .string(action.pluginPath),
                "ok": .bool(result.ok), "error": result.error.map(GraftValue.string) ?? .null,
                "variables": .object(result.variables), "result": result.result ?? .null,
            ]))
        } else {
            Output.line("\(reference) from \(action.pluginID) (\(action.pluginPath))")
            if result.ok {
                Output.line("ok")
                for (key, value) in result.variables.sorted(by: { $0.key < $1.key }) { Output.line("  set \(key) = \(value.jsonText)") }
            } else {
                Output.line("failed: \(result.error ?? "without saying why")")
            }
            if let value = result.result { Output.line("  result: \(value.jsonText)") }
        }
        if !result.ok { throw ExitCode(1) }
    }
}
