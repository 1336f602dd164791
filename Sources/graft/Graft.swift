import ArgumentParser
import Foundation
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
            Foundation.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            failure.report()
            Foundation.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            if let suggestion = subcommandSuggestion() {
                FileHandle.standardError.write(Data("Did you mean 'graft \(suggestion)'?\n".utf8))
            }
            if code == .validationFailure {
                FileHandle.standardError.write(Data("Run 'graft help' for usage.\n".utf8))
            }
            Foundation.exit(2)
        }
    }
}
