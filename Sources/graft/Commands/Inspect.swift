import ArgumentParser
import GraftDebugger
import GraftCommandLine
import GraftHost

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show one component's contract, debugConfig and stories.")

    @Argument(help: ArgumentHelp("The component, as KEY or KEY@VERSION.", valueName: "key[@version]"))
    var component: String

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let host = options.makeHost()
        let registered: RegisteredComponent
        do throws(GraftError) {
            registered = try host.resolve(ComponentReference(parsing: component))
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 1)
        }
        // What the component's plugin asks of the sandbox, and whether it has it.
        let granted = host.sandboxSettings.grants[registered.pluginID] ?? []
        let plugin = host.plugins.first { $0.id == registered.pluginID }
        let permissions = plugin?.permissions ?? []
        if options.json {
            guard case .object(var object) = PluginReport.json(component: registered.contract) else { return }
            object["plugin"] = .string(registered.pluginID)
            object["path"] = .string(registered.pluginPath)
            object["format"] = .string(plugin?.isWebAssembly == true ? "wasm32" : "native")
            object["signer"] = plugin?.signer.map { .object(["publisher": .string($0.publisher), "keyID": .string($0.keyID)]) } ?? .null
            object["permissions"] = .list(permissions.map { request in
                .object([
                    "permission": .string(request.permission.description), "reason": .string(request.reason),
                    "granted": .bool(request.permission.isCovered(by: granted)),
                ])
            })
            Output.json(.object(object))
        } else {
            Output.line("plugin: \(registered.pluginID)  (\(registered.pluginPath))")
            if plugin?.isWebAssembly == true { Output.line("runs on: \(PluginReport.anyHost) (WebAssembly ABI \(plugin?.abi.description ?? "?"))") }
            if let signer = plugin?.signer { Output.line("signed by: \(signer.publisher.escapingControls) (key \(signer.keyID))") }
            for request in permissions {
                let state = request.permission.isCovered(by: granted) ? "granted" : "not granted"
                Output.line("permission: \(request.permission)  \(state)  — \(request.reason.escapingControls)")
            }
            if let description = registered.contract.description { Output.line(description) }
            for line in PluginReport.lines(component: registered.contract, indent: "") { Output.line(line) }
        }
    }
}
