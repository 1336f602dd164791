import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

@main
struct Graft: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft",
        abstract: "Load, inspect and try Graft plugins: custom components, validators and actions in shared libraries.",
        version: GraftHost.version,
        subcommands: [
            List.self, Inspect.self, Try.self, Run.self, Check.self, Validate.self, Watch.self, WorkbenchCommand.self, Debug.self,
            Quarantine.self, Lock.self, Bench.self, SDK.self,
        ])

    /// Exit codes: 0 success, 1 a reported failure (invalid value, problems
    /// found), 2 a usage or load error. ArgumentParser's own usage exit code
    /// (64) is mapped to 2 so scripts see one convention.
    /// The subcommand a mistyped first argument was likely meant to be.
    static func subcommandSuggestion() -> String? {
        guard let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        return NearMiss.closest(to: first, among: names)
    }

    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            failure.report()
            Glibc.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            writeToStandardError((fullMessage(for: error) + "\n"))
            if let suggestion = subcommandSuggestion() {
                writeToStandardError("Did you mean 'graft \(suggestion)'?\n")
            }
            if code == .validationFailure {
                writeToStandardError("Run 'graft help' for usage.\n")
            }
            Glibc.exit(2)
        }
    }
}
