import ArgumentParser
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// How Graft's executables end: 0 success, 1 a reported failure (invalid
/// value, problems found), 2 a usage or load error. ArgumentParser's own
/// usage exit code (64) is mapped to 2 so scripts see one convention.
package enum CommandMain {
    /// Parses the process's arguments as `Root`, runs the command and exits.
    /// `suggestion` names what a mistyped first argument was likely meant to
    /// be; `helpHint` is the command that shows the usage. `quick`, when
    /// given, is a command already read from the arguments without
    /// ArgumentParser: it runs, and ends, as a parsed command would.
    package static func run<Root: ParsableCommand>(
        _: Root.Type, helpHint: String, suggestion: () -> String? = { nil }, quick: (() throws -> Void)? = nil
    ) -> Never {
        do {
            if let quick {
                try quick()
            } else {
                var command = try Root.parseAsRoot()
                try command.run()
            }
            exit(0)
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            failure.report()
            Glibc.exit(failure.exitCode)
        } catch {
            let code = Root.exitCode(for: error)
            if code == .success {
                print(Root.fullMessage(for: error))
                Glibc.exit(0)
            }
            writeToStandardError(Root.fullMessage(for: error) + "\n")
            if let suggestion = suggestion() {
                writeToStandardError("Did you mean '\(suggestion)'?\n")
            }
            if code == .validationFailure {
                writeToStandardError("Run '\(helpHint)' for usage.\n")
            }
            Glibc.exit(2)
        }
    }
}
