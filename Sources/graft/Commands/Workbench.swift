import ArgumentParser
import GraftCommandLine
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `graft workbench`: checks its options, then becomes `graft-workbench`
/// (exec, same process: Ctrl-C, signals and the exit status are the
/// server's). The server is its own executable so that `graft`'s other
/// commands start without Hummingbird and NIO in their image.
struct WorkbenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workbench", abstract: WorkbenchArguments.abstract,
        discussion: WorkbenchArguments.discussion + " (Runs graft-workbench, found beside graft, through GRAFT_WORKBENCH or on PATH.)")

    static let executableName = "graft-workbench"

    @OptionGroup var workbench: WorkbenchArguments

    @OptionGroup var options: GlobalOptions

    func run() throws {
        guard let path = CompanionExecutable.find(named: Self.executableName, variable: "GRAFT_WORKBENCH") else {
            let beside = SearchPath.executableFolder.map { " beside \($0)/graft" } ?? ""
            throw CommandFailure(
                error: GraftError(
                    .workbenchNotFound,
                    "no \(Self.executableName) found\(beside), through GRAFT_WORKBENCH or on PATH: build it with `swift build --product \(Self.executableName)` (it belongs beside graft).",
                    path: Self.executableName),
                json: options.json)
        }
        // Everything after the subcommand's name, exactly as given: the
        // server parses the same options (WorkbenchArguments, GlobalOptions).
        let given = Array(CommandLine.arguments.dropFirst())
        let arguments = given.firstIndex(of: "workbench").map { Array(given[($0 + 1)...]) } ?? []
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        fflush(nil)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        throw CommandFailure(
            error: GraftError(.workbenchNotFound, "\(path) could not be started: \(reason).", path: path), json: options.json)
    }
}
