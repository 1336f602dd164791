import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Private names for plugin images, in a folder only this process uses.
///
/// The dynamic loader knows an image by the name it was opened with: a second
/// `dlopen` of a name it has seen returns the first image. So every load goes
/// through a name of its own:
/// - a **link** (`N-libx.so → /proc/self/fd/FD`): the image mapped is exactly
///   the open file that was checked, whatever happens to its path meanwhile;
/// - a **copy** (hot swap): the file can then be rebuilt or rewritten in place
///   while the host runs, without corrupting the mapped image.
/// The name is unlinked as soon as `dlopen` has mapped (or refused) it; a
/// mapped image keeps its pages. The folder goes with the store.
final class ImageStore: Sendable {
    let folder: String
    private let counter = Atomic<Int>(0)

    init() {
        folder = NSTemporaryDirectory() + "graft-images-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func uniqueName(for file: PluginFile) throws(GraftError) -> String {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw GraftError(
                .permissionDenied, "could not create \(folder) to load \(file.path): \(String(cString: strerror(errno))).",
                path: file.path)
        }
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(folder)/\(number)-\((file.realPath as NSString).lastPathComponent)"
    }

    /// A new name that opens `file`'s descriptor itself.
    func link(to file: PluginFile) throws(GraftError) -> String {
        let name = try uniqueName(for: file)
        guard symlink(file.descriptorPath, name) == 0 else {
            throw GraftError(
                .permissionDenied, "could not link \(name) to \(file.path) for loading: \(String(cString: strerror(errno))).",
                path: file.path)
        }
        return name
    }

    /// A new private copy of `file`'s contents, streamed from its descriptor.
    func copy(of file: PluginFile) throws(GraftError) -> String {
        let name = try uniqueName(for: file)
        let target = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o500)
        guard target >= 0 else {
            throw GraftError(
                .permissionDenied, "could not copy \(file.path) to \(name) for loading: \(String(cString: strerror(errno))).",
                path: file.path)
        }
        defer { close(target) }
        do throws(GraftError) {
            try file.forEachBlock { block throws(GraftError) in
                var written = 0
                while written < block.count {
                    let count = write(target, block.baseAddress! + written, block.count - written)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else {
                        throw GraftError(
                            .permissionDenied, "could not copy \(file.path) to \(name): \(String(cString: strerror(errno))).",
                            path: file.path)
                    }
                    written += count
                }
            }
        } catch {
            unlink(name)
            throw error
        }
        return name
    }

    /// Removes a name once its image is mapped or refused.
    func discard(_ name: String) {
        unlink(name)
    }
}
