import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Private names for plugin images, in a folder only this process uses.
///
/// The dynamic loader knows an image by the name it was opened with, and
/// gives the image it already has for a name it has seen: every load
/// therefore goes through a name that is never used twice in the process.
/// - A **link** (`N-libx.so → /proc/self/fd/FD`) maps exactly the open file
///   that was checked, whatever happens to its path meanwhile. (The
///   `/proc/self/fd/FD` name itself would be reused with the descriptor
///   number, and the loader would then hand back an old image.)
/// - A **copy** (hosts that hot-swap) lets the file be rebuilt or rewritten
///   in place while its image runs.
/// Each name is unlinked as soon as `dlopen` has mapped or refused it; a
/// mapped image keeps its pages. The folder (`graft-images-PID-…`, on
/// /dev/shm when it exists, so a link costs no disk write) lives only while a
/// load is under way, except in the scanner child, which keeps it until it
/// ends (its host removes it if it dies).
package final class ImageStore: Sendable {
    let folder: String
    private let counter = Atomic<Int>(0)
    /// Whether the folder stays between loads: in a child process (the
    /// scanner), whose host removes its folders when it ends, one `mkdir`
    /// serves every file instead of a `mkdir` and an `rmdir` per file.
    private let keepsFolder: Bool
    private let folderMade = Atomic<Bool>(false)

    static let prefix = "graft-images-"

    package init(keepsFolder: Bool = false) {
        folder = Self.parent + Self.prefix + "\(getpid())-\(UUID().uuidString.prefix(8))"
        self.keepsFolder = keepsFolder
    }

    /// /dev/shm when this process may write there (memory, not disk), else the temporary folder.
    static let parent: String = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm/" : FileManager.default.temporaryDirectory.path + "/"

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Removes every image folder process `pid` made (it has ended).
    static func removeFolders(ofProcess pid: pid_t) {
        let mine = prefix + "\(pid)-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(mine) {
            try? FileManager.default.removeItem(atPath: parent + name)
        }
    }

    /// A new name that opens `file`'s descriptor itself.
    func link(to file: PluginFile) throws(GraftError) -> String {
        var name = try uniqueName(for: file)
        var linked = symlink(file.descriptorPath, name) == 0
        // Another thread's `discard` may have removed the folder in between: once more.
        if !linked && errno == ENOENT {
            name = try uniqueName(for: file)
            linked = symlink(file.descriptorPath, name) == 0
        }
        guard linked else {
            throw GraftError(
                .permissionDenied, "could not link \(name) to \(file.path) for loading: \(String(cString: strerror(errno))).",
                path: file.path)
        }
        return name
    }

    private func uniqueName(for file: PluginFile) throws(GraftError) -> String {
        if keepsFolder, folderMade.load(ordering: .relaxed) {
            // Made already, and never removed while this process runs.
        } else if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw GraftError(
                .permissionDenied, "could not create \(folder) to load \(file.path): \(String(cString: strerror(errno))).",
                path: file.path)
        }
        if keepsFolder { folderMade.store(true, ordering: .relaxed) }
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(folder)/\(number)-\(FilePaths.lastComponent(of: file.realPath))"
    }

    /// A new private copy of `file`'s contents, streamed from its descriptor.
    func copy(of file: PluginFile) throws(GraftError) -> String {
        var name = try uniqueName(for: file)
        var target = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o500)
        // Another thread's `discard` may have removed the folder in between: once more.
        if target < 0 && errno == ENOENT {
            name = try uniqueName(for: file)
            target = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o500)
        }
        guard target >= 0 else {
            throw GraftError(
                .permissionDenied, "could not copy \(file.path) to \(name) for loading: \(String(cString: strerror(errno))).",
                path: file.path)
        }
        defer { close(target) }
        do throws(GraftError) {
            try file.forEachBlock { block throws(GraftError) in
                guard writeAll(block, to: target) else {
                    throw GraftError(
                        .permissionDenied, "could not copy \(file.path) to \(name): \(String(cString: strerror(errno))).",
                        path: file.path)
                }
            }
        } catch {
            unlink(name)
            throw error
        }
        return name
    }

    /// Removes a name once its image is mapped or refused, and the folder
    /// with it when it is empty: no folder outlives a load, so none is left
    /// behind by a process that ends with `_exit`, is killed, or exits with
    /// its host still alive (the CLI does, so that nothing is unloaded).
    func discard(_ name: String) {
        unlink(name)
        if !keepsFolder { rmdir(folder) }
    }
}
