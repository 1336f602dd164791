import ArgumentParser
import GraftCommandLine
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

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
        guard let path = CompanionExecutable.find(named: Self.executableName, variable: "GRAFT_BENCH") else {
            let beside = SearchPath.executableFolder.map { " beside \($0)/graft" } ?? ""
            throw CommandFailure(
                error: GraftError(
                    .benchNotFound,
                    "no \(Self.executableName) found\(beside), through GRAFT_BENCH or on PATH: build it with `swift build -c release --static-swift-stdlib --product \(Self.executableName)` (it belongs beside graft).",
                    path: Self.executableName),
                json: false)
        }
        // Everything after the subcommand's name, exactly as given.
        let given = Array(CommandLine.arguments.dropFirst())
        let forwarded = given.firstIndex(of: "bench").map { Array(given[($0 + 1)...]) } ?? arguments
        let argv = ([path] + forwarded).map { strdup($0) } + [nil]
        fflush(nil)
        execv(path, argv)
        throw CommandFailure(
            error: GraftError(.benchNotFound, "\(path) could not be started: \(String(cString: strerror(errno))).", path: path),
            json: false)
    }
}
