import ArgumentParser
import GraftCommandLine
import GraftHost

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run a validator on a value with the editor's string params.",
        discussion: "Exits 0 when valid, 1 when invalid (the message is printed), 2 on error.")

    @Argument(help: ArgumentHelp("The validator, as NAME or NAME@VERSION.", valueName: "name"))
    var name: String

    // One argument for the value and the params, taking what looks like an
    // option too: `graft validate is_even -3` validates -3. (A misspelled
    // long option is still refused, in validate().)
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "The value to validate (text; numbers are converted where the validator takes one; negative numbers as they are), then the validator's params, in order.",
            valueName: "value> <params"))
    var valueAndParams: [String] = []

    var value: String { valueAndParams[0] }
    var params: [String] { Array(valueAndParams.dropFirst()) }

    func validate() throws {
        guard !valueAndParams.isEmpty else { throw ValidationError("Missing expected argument '<value>'.") }
        if let option = valueAndParams.first(where: { $0.hasPrefix("--") && Double($0) == nil }) {
            throw ValidationError("Unknown option '\(option)'.")
        }
    }

    @Flag(help: "Force native validators through libffi instead of the typed fast path (runs the plugin in process).")
    var ffi = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        var options = self.options
        if ffi { options.inProcess = true }  // the call path is this process's to choose
        let host = options.makeHost()
        let result: ValidationOutcome
        do throws(GraftError) {
            result = try host.validate(name, value: .string(value), params: params, path: ffi ? .libffi : .automatic)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        // Which plugin answered: a bare name may be declared by several.
        let answered = try? host.validator(name)
        if options.json {
            Output.json(.object([
                "validator": .string(result.validator), "valid": .bool(result.isValid),
                "message": result.message.map(GraftValue.string) ?? .null,
                "plugin": answered.map { .string($0.pluginID) } ?? .null,
                "pluginPath": answered.map { .string($0.pluginPath) } ?? .null,
            ]))
        } else {
            if let answered {
                let reference = ComponentReference(key: answered.contract.name, version: answered.contract.version)
                Output.line("\(reference) from \(answered.pluginID) (\(answered.pluginPath))")
            }
            Output.line(result.isValid ? "valid" : "invalid: \(result.message ?? "is not valid")")
        }
        if !result.isValid { throw ExitCode(1) }
    }
}
