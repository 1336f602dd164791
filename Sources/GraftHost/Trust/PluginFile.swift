import CGraftSandbox
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// One plugin file, opened once. Every check (regular file, size, owner and
/// mode, ELF headers, symbol table, hash) reads this descriptor, and the
/// loader maps this same descriptor, so nothing can replace the file between
/// the check and the load. The file is never read whole: headers are read
/// with `pread`, the hash is streamed.
package final class PluginFile: @unchecked Sendable {
    // Immutable after init; the descriptor is closed in deinit.
    /// The path as found on the search path or given by the caller.
    package let path: String
    /// The path with every symlink resolved.
    package let realPath: String
    package let descriptor: Int32
    let identity: FileIdentity
    let owner: uid_t
    let mode: mode_t
    /// A copy in sealed memory (`sealedCopy`), not the file itself.
    let isSealed: Bool

    /// Far larger than any plugin: refused before anything is read.
    static let maximumSize: Int64 = 1 << 30

    /// Opens `path`, refusing what is missing, unreadable, not a regular file,
    /// a dangling or looping symlink, or larger than `maximumSize`.
    package convenience init(opening path: String) throws(GraftError) {
        guard let resolved = realpath(path, nil) else {
            // Why not, from the name itself (asked only on failure: one path walk less per load).
            let reason = errno
            var link = stat()
            guard lstat(path, &link) == 0 else {
                if errno == EACCES {
                    throw GraftError(.permissionDenied, "\(path) cannot be reached: permission denied on a folder above it.", path: path)
                }
                throw GraftError(.pluginNotFound, "\(path) does not exist.", path: path)
            }
            if (link.st_mode & S_IFMT) == S_IFLNK {
                if reason == ELOOP {
                    throw GraftError(.pluginNotFound, "\(path) is a symlink loop: following it never reaches a file.", path: path)
                }
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                throw GraftError(.pluginNotFound, "\(path) is a dangling symlink: its target \(target) does not exist.", path: path)
            }
            throw GraftError(.pluginNotFound, "\(path) cannot be resolved: \(String(cString: strerror(reason))).", path: path)
        }
        let realPath = String(cString: resolved)
        free(resolved)

        // O_NONBLOCK: opening a FIFO named .so must not wait for a writer.
        let descriptor = open(realPath, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EACCES || errno == EPERM {
                throw GraftError(.permissionDenied, "\(path) cannot be read: \(reason).", path: path)
            }
            throw GraftError(.pluginNotFound, "\(path) cannot be opened: \(reason).", path: path)
        }
        try self.init(adopting: descriptor, path: path, realPath: realPath)
    }

    /// Opens a file the search path found, by the real path discovery worked
    /// out (no `realpath` walk per file). If the name is no longer that file's
    /// (it became a symlink, or went), it is opened from its path as usual.
    convenience init(opening entry: SearchPath.Entry) throws(GraftError) {
        let descriptor = open(entry.realPath, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            try self.init(opening: entry.path)
            return
        }
        try self.init(adopting: descriptor, path: entry.path, realPath: entry.realPath)
    }

    /// Takes over `descriptor`, opened by someone else (the host, for the
    /// scanner child), and runs the same checks on it. Closes it on failure.
    package init(adopting descriptor: Int32, path: String, realPath: String) throws(GraftError) {
        self.path = path
        self.realPath = realPath
        func refuse(_ code: GraftError.Code, _ message: String) -> GraftError {
            close(descriptor)
            return GraftError(code, message, path: path)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw refuse(.pluginNotFound, "\(path) cannot be examined: \(String(cString: strerror(errno))).")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw refuse(.notASharedLibrary, "\(path) is not a regular file.")
        }
        // Root can read a file of mode 000, but a plugin nobody may read is
        // not meant to be loaded: refuse it the same way for every user.
        guard status.st_mode & (S_IRUSR | S_IRGRP | S_IROTH) != 0 else {
            throw refuse(
                .permissionDenied, "\(path) cannot be read: its mode grants no read permission (chmod a+r to load it).")
        }
        guard Int64(status.st_size) <= Self.maximumSize else {
            throw refuse(
                .pluginTooLarge,
                "\(path) is \(Int64(status.st_size)) bytes, more than the \(Self.maximumSize >> 20) MiB any plugin needs; it was not read.")
        }
        self.descriptor = descriptor
        owner = status.st_uid
        mode = status.st_mode
        identity = FileIdentity(status)
        isSealed = false
    }

    /// A copy of `original`'s bytes behind `descriptor`, named and identified as it.
    private init(copyOf original: PluginFile, descriptor: Int32) {
        path = original.path
        realPath = original.realPath
        self.descriptor = descriptor
        identity = original.identity
        owner = original.owner
        mode = original.mode
        isSealed = true
    }

    deinit {
        close(descriptor)
    }

    /// This file's bytes copied into memory and sealed, so that nobody can
    /// change them, named and identified as this file: what a host that
    /// expects plugin files to be rewritten in place hashes, judges, scans
    /// and maps, so that what it checked is what runs. A file that changes
    /// while it is copied (its identity moves) is refused with
    /// `plugin_changed`; the watcher reads it again once it settles.
    func sealedCopy() throws(GraftError) -> PluginFile {
        let memory = graft_sealed_memory_copy(descriptor, UInt64(identity.size))
        let reason = errno
        var status = stat()
        let unchanged = fstat(descriptor, &status) == 0 && FileIdentity(status) == identity
        // A copy that came up short (EIO: the file shrank) or a file whose identity moved is being written.
        guard unchanged, memory >= 0 || reason != EIO else {
            if memory >= 0 { close(memory) }
            throw GraftError(.pluginChanged, "\(path) changed while it was read (it is being written); it is read again once it settles.", path: path)
        }
        guard memory >= 0 else {
            let why = reason == EMFILE || reason == ENFILE || reason == ENOMEM ? "the host is out of descriptors or memory" : String(cString: strerror(reason))
            throw GraftError(.permissionDenied, "\(path) could not be copied into memory to be checked: \(why).", path: path)
        }
        return PluginFile(copyOf: self, descriptor: memory)
    }

    var size: Int { Int(identity.size) }

    /// Up to `count` bytes at `offset`; fewer at the end of the file.
    func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        return [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
            count = readAll(into: UnsafeMutableRawBufferPointer(buffer), from: descriptor, at: offset)
        }
    }

    /// Streams the file through `body` in blocks, from the start.
    func forEachBlock(_ body: (UnsafeRawBufferPointer) throws(GraftError) -> Void) throws(GraftError) {
        // Below glibc's mmap threshold: a larger block is mmapped, and once
        // freed raises that threshold, after which each block grows the heap
        // for good (the host's memory crept with every hot swap).
        let blockSize = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let got = pread(descriptor, buffer, blockSize, off_t(offset))
            if got < 0 && errno == EINTR { continue }
            if got < 0 {
                throw GraftError(.permissionDenied, "\(path) could not be read: \(String(cString: strerror(errno))).", path: path)
            }
            if got == 0 { return }
            try body(UnsafeRawBufferPointer(start: buffer, count: got))
            offset += got
        }
    }
}
