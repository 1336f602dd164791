import CGraftSandbox
import CGraftSystem
import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The scanner child's side (`graft-child scan`, started by `ChildMain`): describe
/// each plugin file the host sends, with the descriptor it sends, and answer
/// with everything the file declares or every problem found. Before each
/// stage (constructors, graft_entry, init, descriptors) it writes one byte to
/// its progress pipe (descriptor 4), so
/// a crash can be reported with where it happened. Plugins stay loaded until
/// the child exits, and it exits with `_exit`: no plugin's deinit or
/// destructor runs, so none can turn a good scan into a crash.
enum ScannerService {
    /// Serves scans until the host closes the connection, then ends the child.
    static func serve() -> Never {
        guard ChildChannel.sayHello() else { ChildMain.finish() }
        let loader = PluginLoader(logger: Logger(label: "graft.scanner", factory: { StreamLogHandler.standardError(label: $0) }))
        // Removed in ChildMain.finish(), or by the host when this process dies.
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
        ChildMain.finish()
    }

    /// The progress pipe the host gave the scanner (see `ChildProcess`).
    static let progressDescriptor: Int32 = 4

    private static func answer(_ id: UInt32, _ answer: (kind: Wire.Kind, payload: [UInt8])) {
        if !ChildChannel.send(answer.kind, id: id, answer.payload) { ChildMain.finish() }
    }
}
