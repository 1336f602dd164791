import CGraftSandbox
import CGraftSystem
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// `graft-child`'s start: what every role does first (die with the parent,
/// contain descendants, enter the sandbox), then the role itself:
///
/// - `scan`: describe plugin files (`ScannerService`);
/// - `serve`: run isolated plugins (`RunnerService`);
/// - `conform`: run one conformance test (GraftConformance's
///   `ConformanceService.serve`, which GraftHost does not link, passed in);
/// - `keep`: hold the host's children's empty network (`NamespaceKeeper`);
///   it runs no plugin code.
package enum ChildMain {
    package static func main(arguments: [String], conform: () -> Never) -> Never {
        guard ["scan", "serve", "conform", "keep"].contains(arguments.first) else {
            writeToStandardError("usage: graft-child scan|serve|conform|keep (started by a Graft host, which talks to it on descriptor 3)\n")
            exit(64)
        }
        if let parent = ProcessEnvironment.value("GRAFT_PARENT_PID").flatMap({ pid_t($0) }) {
            _ = graft_die_with_parent(parent)
        }
        if arguments.first == "keep" { _exit(graft_keep_namespaces(ChildChannel.descriptor) == 0 ? 0 : 71) }
        var rest = arguments.dropFirst()
        // Before any thread exists (the namespaces require it) and before the
        // sandbox (whose filter refuses them).
        if rest.first == ChildProcess.containOption {
            rest.removeFirst()
            let error = graft_contain_descendants()
            if error != 0 {
                writeToStandardError("graft-child: processes its plugins start may outlive it: user and PID namespaces are unavailable (\(String(cString: strerror(error)))).\n")
            }
        }
        signal(SIGPIPE, SIG_IGN)
        // The sandbox first, whatever the role: nothing of a plugin is mapped before it.
        if let policy = SandboxPolicy(arguments: &rest) { ChildChannel.enterSandbox(policy) }
        switch arguments.first {
        case "serve": RunnerService.serve(arguments: rest)
        case "conform": conform()
        default: ScannerService.serve()
        }
    }

    /// Ends the child with `_exit`: no plugin's deinit or destructor runs, so
    /// none can turn a good answer into a crash. The image folder a copying
    /// host's child made is removed first.
    package static func finish() -> Never {
        // A sandboxed child maps from memory and made no folder (nor may it list /dev/shm).
        if !ChildSandbox.isEntered { ImageStore.removeFolders(ofProcess: getpid()) }
        _exit(0)
    }
}
