import CGraftSandbox
import CGraftSystem
import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The scanner child's side (the `graft-child scan` executable): describe
/// each plugin file the host sends, with the descriptor it sends, and answer
/// with everything the file declares or every problem found. Before each
/// stage (constructors, graft_entry, init, descriptors) it writes one byte to
/// its progress pipe (descriptor 4), so
/// a crash can be reported with where it happened. Plugins stay loaded until
/// the child exits, and it exits with `_exit`: no plugin's deinit or
/// destructor runs, so none can turn a good scan into a crash.
package enum ScannerService {
    /// `conform` serves `graft-child conform`, one conformance test
    /// (GraftConformance's `ConformanceService.serve`, which GraftHost does
    /// not link).
    package static func main(arguments: [String], conform: () -> Never) -> Never {
        guard ["scan", "serve", "conform", "keep"].contains(arguments.first) else {
            writeToStandardError("usage: graft-child scan|serve|conform|keep (started by a Graft host, which talks to it on descriptor 3)\n")
            exit(64)
        }
        if let parent = ProcessEnvironment.value("GRAFT_PARENT_PID").flatMap({ pid_t($0) }) {
            _ = graft_die_with_parent(parent)
        }
        // The keeper of the host's children's empty network (`NamespaceKeeper`): it runs no plugin code.
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
        // The sandbox first, whatever the mode: nothing of a plugin is mapped before it.
        if let policy = SandboxPolicy(arguments: &rest) { ChildChannel.enterSandbox(policy) }
        if arguments.first == "serve" { RunnerService.serve(arguments: rest) }
        if arguments.first == "conform" { conform() }
        guard ChildChannel.sayHello() else { ScannerService.finish() }

        let loader = PluginLoader(logger: Logger(label: "graft.scanner", factory: { StreamLogHandler.standardError(label: $0) }))
        // Removed in finish(), or by the host when this process dies.
        let images = ImageStore(keepsFolder: true)
        var kept: [LoadedPlugin] = []
        var channel = ChildChannel()
        while let (header, payload, descriptor) = channel.next() {
            guard header.kind == .scan, descriptor >= 0, let request = ScanRequest(payload) else {
                if descriptor >= 0 { close(descriptor) }
                continue
            }
            let id = header.id
            do throws(GraftError) {
                let file = try PluginFile(adopting: descriptor, path: request.path, realPath: request.realPath)
                let mapping = ChildSandbox.mapping(copy: request.copy)
                let outcome = loader.open(file, mapping: mapping, images: images) { stage in
                    // One byte on the progress pipe (descriptor 4): the host reads
                    // it only if this process dies or hangs.
                    var byte = stage.rawValue
                    _ = write(progressDescriptor, &byte, 1)
                }
                switch outcome {
                case .failure(let problems):
                    answer(id, ScanRequest.refused(problems.errors))
                case .success(let plugin):
                    kept.append(plugin)  // never released: see the type's comment
                    _ = try ValidatorRegistry().prepare(plugin)
                    answer(id, ScanRequest.described(plugin.info))
                }
            } catch {
                answer(id, ScanRequest.refused([error]))
            }
        }
        finish()
    }

    /// The progress pipe the host gave the scanner (see `ChildProcess`).
    static let progressDescriptor: Int32 = 4

    /// Ends the child: no plugin's deinit or destructor runs, and the image
    /// folder a copying host made is removed first.
    package static func finish() -> Never {
        // A sandboxed child maps from memory and made no folder (nor may it list /dev/shm).
        if !ChildSandbox.isEntered { ImageStore.removeFolders(ofProcess: getpid()) }
        _exit(0)
    }

    private static func answer(_ id: UInt32, _ answer: (kind: Wire.Kind, payload: [UInt8])) {
        if !ChildChannel.send(answer.kind, id: id, answer.payload) { finish() }
    }
}
