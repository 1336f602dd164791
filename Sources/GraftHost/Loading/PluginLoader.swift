import CGraft
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Turns one file into a `LoadedPlugin`: read, check the ELF image, `dlopen`,
/// find `graft_entry`, check the ABI, `init`, read and check every descriptor.
/// Each step that fails yields a `GraftError` naming the file; nothing a
/// plugin does wrong stops the host.
struct PluginLoader: Sendable {
    var logger: Logger

    /// Loads `path`, or throws its first problem (the message counts the rest).
    /// With `image`, the bytes of `path` already read and copied to
    /// `image.path`: that copy is what gets mapped (hot swap, see ImageStore).
    func load(path: String, image: (path: String, bytes: [UInt8])? = nil) throws(GraftError) -> LoadedPlugin {
        switch open(path: path, image: image) {
        case .success(let plugin):
            return plugin
        case .failure(let problems):
            var first = problems.errors[0]
            if problems.errors.count > 1 {
                first.message += " (and \(problems.errors.count - 1) more problem\(problems.errors.count == 2 ? "" : "s"); `graft check \(path)` lists them)"
            }
            throw first
        }
    }

    struct Problems: Error {
        var errors: [GraftError]
    }

    /// Loads `path` and collects every problem found.
    func open(path: String, image copy: (path: String, bytes: [UInt8])? = nil) -> Result<LoadedPlugin, Problems> {
        func fail(_ error: GraftError) -> Result<LoadedPlugin, Problems> { .failure(Problems(errors: [error])) }

        let image: ELFImage
        do throws(GraftError) {
            let bytes: [UInt8]
            if let copy { bytes = copy.bytes } else { bytes = try Self.readFile(path: path) }
            image = try ELFImage(bytes: bytes, path: path)
        } catch {
            return fail(error)
        }
        let imagePath = copy?.path ?? path

        // RTLD_LOCAL keeps each plugin's symbols to itself; NODELETE makes the
        // dynamic loader keep Swift images mapped even if closed by mistake.
        let flags = RTLD_NOW | RTLD_LOCAL | (image.containsSwift ? RTLD_NODELETE : 0)
        guard let handle = dlopen(imagePath, flags) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return fail(GraftError(.dlopenFailed, "\(path) could not be opened by the dynamic loader: \(reason)", path: path))
        }
        let close = { if !image.containsSwift { dlclose(handle) } }

        guard let symbol = dlsym(handle, GRAFT_ENTRY_SYMBOL) else {
            close()
            return fail(GraftError(
                .entrySymbolMissing,
                "\(path) does not export '\(GRAFT_ENTRY_SYMBOL)'; a plugin exports `GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void)` (see graft.h).",
                path: path, symbol: GRAFT_ENTRY_SYMBOL))
        }
        let entryFunction = unsafeBitCast(symbol, to: graft_entry_fn.self)
        guard let entry = entryFunction() else {
            close()
            return fail(GraftError(.invalidDescriptor, "\(path): graft_entry() returned NULL.", path: path, symbol: GRAFT_ENTRY_SYMBOL))
        }

        let abi = ABIVersion(major: Int(entry.pointee.abi.major), minor: Int(entry.pointee.abi.minor))
        guard abi.isLoadable() else {
            close()
            return fail(GraftError(
                .abiIncompatible,
                "\(path) was built for Graft ABI \(abi) but this host implements ABI \(ABIVersion.host); rebuild it against a graft.h with major \(ABIVersion.host.major) and minor <= \(ABIVersion.host.minor).",
                path: path, symbol: GRAFT_ENTRY_SYMBOL))
        }
        let expectedSize = MemoryLayout<graft_plugin_entry_t>.stride  // C's sizeof
        let structSize = Int(entry.pointee.struct_size)
        guard structSize >= expectedSize else {
            close()  // From here on nothing of the image may be read.
            return fail(GraftError(
                .invalidDescriptor,
                "\(path): the entry's struct_size is \(structSize) but graft_plugin_entry_t has \(expectedSize) bytes; set it to sizeof(graft_plugin_entry_t).",
                path: path, symbol: GRAFT_ENTRY_SYMBOL))
        }

        var entryProblems: [GraftError] = []
        func entryString(_ pointer: UnsafePointer<CChar>?, _ field: String, required: Bool) -> String? {
            let value = String(plugin: pointer)
            if required && (value?.isEmpty ?? true) {
                entryProblems.append(GraftError(
                    .invalidDescriptor, "\(path): the entry's \(field) is \(value == nil ? "NULL" : "empty").",
                    path: path, symbol: GRAFT_ENTRY_SYMBOL))
            }
            return value
        }
        let id = entryString(entry.pointee.id, "id", required: true)
        let version = entryString(entry.pointee.version, "version", required: true)
        let name = entryString(entry.pointee.name, "name", required: false)
        if entry.pointee.`init` == nil || entry.pointee.get_factory == nil {
            entryProblems.append(GraftError(
                .invalidDescriptor, "\(path): the entry's init or get_factory function is NULL.", path: path,
                symbol: GRAFT_ENTRY_SYMBOL))
        }
        guard entryProblems.isEmpty, let id, let version, let initialize = entry.pointee.`init`,
            let getFactory = entry.pointee.get_factory
        else {
            close()
            return .failure(Problems(errors: entryProblems))
        }

        let host = HostHandle(path: path, logger: logger)
        guard initialize(host.pointer) else {
            close()  // graft.h: deinit is not called when init refused the load.
            return fail(GraftError(
                .pluginInitFailed, "\(path): plugin '\(id)' refused to start (its init returned false).", path: path,
                symbol: "init"))
        }

        var reader = DescriptorReader(path: path)
        let componentFactory = getFactory(GRAFT_COMPONENT_FACTORY_ID)?.assumingMemoryBound(to: graft_component_factory_t.self)
        let components = componentFactory.map { reader.readComponents($0) } ?? []
        let validators =
            getFactory(GRAFT_VALIDATOR_FACTORY_ID).map {
                reader.readValidators($0.assumingMemoryBound(to: graft_validator_factory_t.self))
            } ?? []
        let actions =
            getFactory(GRAFT_ACTION_FACTORY_ID).map {
                reader.readActions($0.assumingMemoryBound(to: graft_action_factory_t.self))
            } ?? []
        guard reader.problems.isEmpty else {
            entry.pointee.deinit?()
            close()
            return .failure(Problems(errors: reader.problems))
        }

        let info = PluginInfo(
            id: id, version: version, name: (name?.isEmpty ?? true) ? id : name!,
            vendor: String(plugin: entry.pointee.vendor), description: String(plugin: entry.pointee.description),
            path: path, imagePath: imagePath, abi: abi, canUnload: !image.containsSwift, components: components,
            validators: validators.map(\.0), actions: actions.map(\.0))
        return .success(LoadedPlugin(
            info: info, handle: handle, entry: entry, host: host, componentFactory: componentFactory,
            validators: validators, actions: actions))
    }

    /// Reads the whole file, refusing what is missing, unreadable or not a
    /// regular file; the caller checks the ELF image before any code runs.
    static func readFile(path: String) throws(GraftError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == EACCES {
                throw GraftError(.permissionDenied, "\(path) cannot be read: permission denied.", path: path)
            }
            throw GraftError(.pluginNotFound, "\(path) does not exist.", path: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw GraftError(.notASharedLibrary, "\(path) is not a regular file.", path: path)
        }
        // Root can read a file of mode 000, but a plugin nobody may read is
        // not meant to be loaded: refuse it the same way for every user.
        guard status.st_mode & (S_IRUSR | S_IRGRP | S_IROTH) != 0 else {
            throw GraftError(
                .permissionDenied, "\(path) cannot be read: its mode grants no read permission (chmod a+r to load it).",
                path: path)
        }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EACCES || errno == EPERM {
                throw GraftError(.permissionDenied, "\(path) cannot be read: \(reason).", path: path)
            }
            throw GraftError(.pluginNotFound, "\(path) cannot be opened: \(reason).", path: path)
        }
        defer { Glibc.close(descriptor) }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, size - done, off_t(done))
            }
            if count <= 0 { break }
            done += count
        }
        if done < size { bytes.removeLast(size - done) }
        return bytes
    }
}
