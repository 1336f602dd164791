import ArgumentParser
import GraftCommandLine
import GraftHost

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
        try CompanionCommand.exec(
            Self.executableName, variable: "GRAFT_WORKBENCH", subcommand: "workbench",
            buildHint: "swift build --product \(Self.executableName)", code: .workbenchNotFound, json: options.json)
    }
}
