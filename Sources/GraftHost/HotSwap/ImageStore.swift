import CGraftSystem
import CGraftSandbox
import FoundationEssentials
import GraftSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Private names for plugin images.
///
/// The dynamic loader knows an image by the name it was opened with, and
/// gives the image it already has for a name it has seen: every load
/// therefore goes through a name that is never used twice in the process.
/// - A **descriptor name** (`descriptorName(for:)`) maps exactly the open file that was
///   checked, whatever happens to its path meanwhile, and makes no file:
///   `/proc/self/fd/FD` itself would be reused with the descriptor number (and
///   the loader would then hand back an old image), so the name spells a
///   number never used before in path steps the kernel skips (see `descriptorName(for:)`).
/// - A **copy** (hosts that hot-swap) lets the file be rebuilt or rewritten
///   in place while its image runs. Copies live in a folder only this
///   process uses (`graft-images-PID-…`, on /dev/shm when it exists, so a
///   copy costs no disk write); each is unlinked as soon as `dlopen` has
///   mapped or refused it (a mapped image keeps its pages), and the folder
///   lives only while a load is under way, except in the scanner child,
///   which keeps it until it ends (its host removes it if it dies).
final class ImageStore: Sendable {
    /// `graft-images-PID-RANDOM`; its parent is looked up only when a copy is first made.
    private let folderName: String
    var folder: String { Self.parent + folderName }
    private let counter = Atomic<Int>(0)
    /// Whether the folder stays between loads: in a child process (the
    /// scanner), whose host removes its folders when it ends, one `mkdir`
    /// serves every file instead of a `mkdir` and an `rmdir` per file.
    private let keepsFolder: Bool
    private let folderMade = Atomic<Bool>(false)

    static let prefix = "graft-images-"

    /// One count for the whole process: the loader's names are process-wide,
    /// whichever store or host asks.
    private static let descriptorNames = Atomic<Int>(0)

    init(keepsFolder: Bool = false) {
        folderName = Self.prefix + "\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
        self.keepsFolder = keepsFolder
    }

    /// /dev/shm when this process may write there (memory, not disk), else the temporary folder.
    static let parent: String = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm/" : FileManager.default.temporaryDirectory.path + "/"

    deinit {
        // Only a store that copied files made a folder.
        if counter.load(ordering: .relaxed) > 0 { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Removes every image folder process `pid` made (it has ended).
    static func removeFolders(ofProcess pid: pid_t) {
        let mine = prefix + "\(pid)-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(mine) {
            _ = graft_remove_path(parent + name)
        }
    }

    /// A new name that opens `file`'s descriptor itself, with no file made:
    /// `/proc/self/fd`, then the bits of a number never given out before in
    /// this process, most significant (always 1) first, as `/.` for 1 and `/` for 0
    /// (steps the kernel skips), then `/FD`. Read left to right, a name gives
    /// back its bits, so no two names are the same string.
    func descriptorName(for file: PluginFile) -> String {
        descriptorName(ofDescriptor: file.descriptor)
    }

    private func descriptorName(ofDescriptor descriptor: Int32) -> String {
        let number = UInt(bitPattern: Self.descriptorNames.wrappingAdd(1, ordering: .relaxed).newValue)
        var name = "/proc/self/fd"
        for shift in stride(from: UInt.bitWidth - number.leadingZeroBitCount - 1, through: 0, by: -1) {
            name += (number >> UInt(shift)) & 1 == 1 ? "/." : "/"
        }
        return name + "/\(descriptor)"
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

    /// A name `dlopen` maps `file` through, and what to release once it has
    /// mapped or refused it (a copy is removed, a memory copy's descriptor closed).
    struct Name {
        let path: String
        let release: () -> Void
    }

    /// The name for `file` under `mapping` (see `PluginLoader.ImageSource`).
    func name(for file: PluginFile, mapping: PluginLoader.ImageSource) throws(GraftError) -> Name {
        switch mapping {
        case .descriptorName:
            return Name(path: descriptorName(for: file), release: {})
        case .copy:
            let path = try copy(of: file)
            return Name(path: path, release: { self.discard(path) })
        case .memory:
            // A private copy in memory (`memfd_create`, copied in the kernel with
            // `sendfile`): what a sandboxed child maps, since Landlock refuses to
            // open the file again by any path while a memory file, having none,
            // is the child's own.
            let memory = graft_memory_copy(file.descriptor, UInt64(file.identity.size))
            guard memory >= 0 else {
                let reason = String(cString: strerror(errno))
                throw GraftError(
                    .permissionDenied, "could not copy \(file.path) into memory to load it: \(reason).",
                    path: file.path)
            }
            return Name(path: descriptorName(ofDescriptor: memory), release: { close(memory) })
        }
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
