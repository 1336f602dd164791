import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost

@main
struct Graft: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft",
        abstract: "Load, inspect and try Graft plugins: custom components, validators and actions in shared libraries.",
        version: GraftHost.version,
        subcommands: [
            List.self, Inspect.self, Try.self, TestStories.self, Run.self, Check.self, Validate.self, ActionCommand.self, Watch.self, WorkbenchCommand.self, Debug.self,
            Quarantine.self, Lock.self, Sign.self, Verify.self, Config.self, New.self, BenchCommand.self, SDK.self,
        ])

    /// The subcommand a mistyped first argument was likely meant to be.
    static func subcommandSuggestion() -> String? {
        guard let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        return NearMiss.closest(to: first, among: names).map { "graft \($0)" }
    }

    static func main() {
        let quick = ListRequest(quick: Array(CommandLine.arguments.dropFirst())).map { request in { request.run() } }
        CommandMain.run(Self.self, helpHint: "graft help", suggestion: subcommandSuggestion, quick: quick)
    }
}
