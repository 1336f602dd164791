import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// What `graft workbench` and `graft bench` do once their options are
/// checked: become the companion executable (exec, same process, so Ctrl-C,
/// signals and the exit status are the companion's), handing it every
/// argument after the subcommand's name exactly as given.
package enum CompanionCommand {
    /// Never returns on success; throws `code` when the companion is missing
    /// or cannot be started.
    package static func exec(
        _ name: String, variable: String, subcommand: String, buildHint: String, code: CommandLineError.Code, json: Bool
    ) throws -> Never {
        guard let path = CompanionExecutable.find(named: name, variable: variable) else {
            let beside = SearchPath.executableFolder.map { " beside \($0)/graft" } ?? ""
            throw CommandFailure(
                error: CommandLineError(
                    code, "no \(name) found\(beside), through \(variable) or on PATH: build it with `\(buildHint)` (it belongs beside graft).",
                    path: name),
                json: json)
        }
        let given = Array(CommandLine.arguments.dropFirst())
        let arguments = given.firstIndex(of: subcommand).map { Array(given[($0 + 1)...]) } ?? []
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        fflush(nil)
        execv(path, argv)
        throw CommandFailure(
            error: CommandLineError(code, "\(path) could not be started: \(String(cString: strerror(errno))).", path: path), json: json)
    }
}
