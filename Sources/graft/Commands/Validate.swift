import ArgumentParser
import GraftHost

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run a validator on a value with the editor's string params.",
        discussion: "Exits 0 when valid, 1 when invalid (the message is printed), 2 on error.")

    @Argument(help: ArgumentHelp("The validator, as NAME or NAME@VERSION.", valueName: "name"))
    var name: String

    @Argument(help: "The value to validate (text; numbers are converted where the validator takes one).")
    var value: String

    @Argument(help: "The validator's params, in order.")
    var params: [String] = []

    @Flag(help: "Force native validators through libffi instead of the typed fast path (runs the plugin in process).")
    var ffi = false

    @OptionGroup var options: GlobalOptions

    func run() throws {
        var options = self.options
        if ffi { options.inProcess = true }  // the call path is this process's to choose
        let host = options.makeHost()
        let result: ValidationResult
        do throws(GraftError) {
            result = try host.validate(name, value: .string(value), params: params, path: ffi ? .libffi : .automatic)
        } catch {
            throw CommandFailure(error: error, json: options.json)
        }
        if options.json {
            Output.json(.object([
                "validator": .string(result.validator), "valid": .bool(result.isValid),
                "message": result.message.map(GraftValue.string) ?? .null,
            ]))
        } else {
            Output.line(result.isValid ? "valid" : "invalid: \(result.message ?? "is not valid")")
        }
        if !result.isValid { throw ExitCode(1) }
    }
}
