import ArgumentParser
import GraftCommandLine
import GraftHost

/// `graft bench`: becomes `graft-bench` (exec, same process), which holds the
/// benchmarks, so that `graft`'s other commands start without their code.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the paths that matter against a baseline in the same run, and print ratios.",
        discussion: """
            Runs graft-bench, found beside graft, through GRAFT_BENCH or on PATH (`swift build -c release \
            --static-swift-stdlib` builds it beside graft). `graft-bench --help` lists the parts and options.
            """)

    static let executableName = "graft-bench"

    @Argument(parsing: .allUnrecognized, help: "The parts and options, as graft-bench takes them.")
    var arguments: [String] = []

    func run() throws {
        try CompanionCommand.exec(
            Self.executableName, variable: "GRAFT_BENCH", subcommand: "bench",
            buildHint: "swift build -c release --static-swift-stdlib --product \(Self.executableName)", code: .benchNotFound,
            json: false)
    }
}
