import CGraft
import FoundationEssentials
import GraftSupport
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Turns one open file into a `LoadedPlugin`: check the ELF image and its
/// entry symbol, `dlopen` that same file, call `graft_entry`, check the ABI,
/// `init`, read and check every descriptor. Each step that fails yields a
/// `GraftError` naming the file; nothing a plugin does wrong stops the host.
/// (A plugin that crashes or hangs does, in process: that is why hosts scan
/// every file in a child first; see `Scanner`.)
struct PluginLoader: Sendable {
    var logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The smallest entry a host accepts: the 1.0 struct (GRAFT_ENTRY_SIZE_1_0).
    static let entrySize10 = Int(graft_entry_size_1_0())

    /// How the image is mapped: through a name of its own for the open file's
    /// descriptor, from a private copy of it (hosts whose plugins are rebuilt
    /// in place), or from a private copy in memory (a sandboxed child, which
    /// may not open the file again by any path). See `ImageStore`.
    enum ImageSource: Sendable {
        case descriptorName, copy, memory
    }

    /// Where a load has got to, for reports of a crash or a hang.
    enum Stage: UInt8, Sendable, CustomStringConvertible {
        case checks = 0, constructors, entry, initialize, describe, done

        var description: String {
            switch self {
            case .checks: "while its file was checked"
            case .constructors: "in its constructors (while dlopen ran them)"
            case .entry: "in graft_entry"
            case .initialize: "in init"
            case .describe: "while its descriptors were read"
            case .done: "after it loaded"
            }
        }
    }

    /// Loads `file`, or throws its first problem (the message counts the rest).
    func load(_ file: PluginFile, mapping: ImageSource, images: ImageStore) throws(GraftError) -> LoadedPlugin {
        switch open(file, mapping: mapping, images: images) {
        case .success(let plugin):
            return plugin
        case .failure(let problems):
            throw problems.first(path: file.path)
        }
    }

    struct Problems: Error {
        var errors: [GraftError]

        /// The first problem, its message counting the others.
        func first(path: String) -> GraftError {
            var first = errors[0]
            if errors.count > 1 {
                first.message += " (and \(errors.count - 1) more problem\(errors.count == 2 ? "" : "s"); `graft check \(path)` lists them)"
            }
            return first
        }
    }

    /// Loads `file` and collects every problem found. `stage` hears each
    /// stage before it starts (the scanner child reports it to the host).
    func open(
        _ file: PluginFile, mapping: ImageSource, images: ImageStore, stage: (Stage) -> Void = { _ in }
    ) -> Result<LoadedPlugin, Problems> {
        func fail(_ error: GraftError) -> Result<LoadedPlugin, Problems> { .failure(Problems(errors: [error])) }
        let path = file.path
        let noEntry = GraftError(
            .entrySymbolMissing,
            "\(path) does not export '\(GRAFT_ENTRY_SYMBOL)'; a plugin exports `GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void)` (see graft.h).",
            path: path, symbol: GRAFT_ENTRY_SYMBOL)

        stage(.checks)
        let image: ELFImage, imageName: ImageStore.Name
        do throws(GraftError) {
            image = try ELFImage(file: file)
            switch image.entry {
            case .function: break
            case .missing: throw noEntry
            case .notAFunction(let type):
                throw GraftError(
                    .entrySymbolMissing,
                    "\(path) exports '\(GRAFT_ENTRY_SYMBOL)' as data (ELF symbol type \(type)), not as a function; it was not called. Export `GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void)` (see graft.h).",
                    path: path, symbol: GRAFT_ENTRY_SYMBOL)
            }
            // Through a private name of its own (see ImageStore): the checked
            // descriptor itself, or, for a host that hot-swaps, a private copy.
            imageName = try images.name(for: file, mapping: mapping)
        } catch {
            return fail(error)
        }
        // Mapped or refused, a private copy is no longer needed.
        defer { imageName.release() }
        let imagePath = imageName.path

        // RTLD_LOCAL keeps each plugin's symbols to itself; NODELETE makes the
        // dynamic loader keep Swift images mapped even if closed by mistake.
        stage(.constructors)
        let flags = RTLD_NOW | RTLD_LOCAL | (image.containsSwift ? RTLD_NODELETE : 0)
        guard let handle = dlopen(imagePath, flags) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return fail(GraftError(
                .dlopenFailed, "\(path) could not be opened by the dynamic loader: \(reason.replacing(imagePath, with: path))",
                path: path))
        }
        // Every refusal from here on closes the image (unless it holds Swift):
        // nothing of it may be read after.
        func refuse(_ errors: [GraftError]) -> Result<LoadedPlugin, Problems> {
            if !image.containsSwift { dlclose(handle) }
            return .failure(Problems(errors: errors))
        }

        guard let symbol = dlsym(handle, GRAFT_ENTRY_SYMBOL) else { return refuse([noEntry]) }
        stage(.entry)
        let entryFunction = unsafeBitCast(symbol, to: graft_entry_fn.self)
        guard let entry = entryFunction() else {
            return refuse([GraftError(
                .invalidDescriptor, "\(path): graft_entry() returned NULL.", path: path, symbol: GRAFT_ENTRY_SYMBOL)])
        }

        let abi = ABIVersion(major: Int(entry.pointee.abi.major), minor: Int(entry.pointee.abi.minor))
        guard abi.isLoadable() else {
            return refuse([GraftError(
                .abiIncompatible,
                "\(path) was built for Graft ABI \(abi) but this host implements ABI \(ABIVersion.host); rebuild it against a graft.h with major \(ABIVersion.host.major) and minor <= \(ABIVersion.host.minor).",
                path: path, symbol: GRAFT_ENTRY_SYMBOL)])
        }
        // graft.h's growth rule: an entry is read up to the smaller of its
        // struct_size and today's sizeof, and one smaller than the 1.0 entry
        // is refused. Every field read below is a 1.0 field; one appended
        // later is read only where struct_size covers it (GRAFT_ENTRY_HAS).
        let structSize = Int(entry.pointee.struct_size)
        guard structSize >= Self.entrySize10 else {
            return refuse([GraftError(
                .invalidDescriptor,
                "\(path): the entry's struct_size is \(structSize) but the smallest graft_plugin_entry_t (ABI 1.0) has \(Self.entrySize10) bytes; set it to sizeof(graft_plugin_entry_t).",
                path: path, symbol: GRAFT_ENTRY_SYMBOL)])
        }

        var entryProblems: [GraftError] = []
        func entryString(_ pointer: UnsafePointer<CChar>?, _ field: String, required: Bool) -> String? {
            let value = String(plugin: pointer)
            if required && (value?.isEmpty ?? true) {
                entryProblems.append(GraftError(
                    .invalidDescriptor, "\(path): the entry's \(field) is \(value == nil ? "NULL" : "empty").",
                    path: path, symbol: GRAFT_ENTRY_SYMBOL))
            }
            // Text a plugin chooses reaches terminals and logs: no escape codes, no NULs.
            if let value, value != value.escapingControls {
                entryProblems.append(GraftError(
                    .invalidDescriptor, "\(path): the entry's \(field) '\(value.escapingControls)' holds control characters.",
                    path: path, symbol: GRAFT_ENTRY_SYMBOL))
            }
            return value
        }
        let id = entryString(entry.pointee.id, "id", required: true)
        let version = entryString(entry.pointee.version, "version", required: true)
        let name = entryString(entry.pointee.name, "name", required: false)
        _ = entryString(entry.pointee.vendor, "vendor", required: false)
        if entry.pointee.`init` == nil || entry.pointee.get_factory == nil {
            entryProblems.append(GraftError(
                .invalidDescriptor, "\(path): the entry's init or get_factory function is NULL.", path: path,
                symbol: GRAFT_ENTRY_SYMBOL))
        }
        guard entryProblems.isEmpty, let id, let version, let initialize = entry.pointee.`init`,
            let getFactory = entry.pointee.get_factory
        else { return refuse(entryProblems) }

        let host = HostHandle(path: path, logger: logger)
        stage(.initialize)
        // graft.h: deinit is not called when init refused the load.
        guard initialize(host.pointer) else {
            return refuse([GraftError(
                .pluginInitFailed, "\(path): plugin '\(id)' refused to start (its init returned false).", path: path,
                symbol: "init")])
        }

        stage(.describe)
        var reader = DescriptorReader(path: path, abiMinor: Int(entry.pointee.abi.minor))
        let componentFactory = getFactory(GRAFT_COMPONENT_FACTORY_ID)?.assumingMemoryBound(to: graft_component_factory_t.self)
        var components = componentFactory.map { reader.read($0).map(\.0) } ?? []
        let validators = reader.read(getFactory(GRAFT_VALIDATOR_FACTORY_ID), as: graft_validator_factory_t.self)
        let actions = reader.read(getFactory(GRAFT_ACTION_FACTORY_ID), as: graft_action_factory_t.self)
        let permissions =
            abi.minor >= 2
            ? getFactory(GRAFT_PERMISSIONS_ID).map { reader.read($0.assumingMemoryBound(to: graft_permissions_t.self)) } ?? [] : []
        if abi.minor >= 3, let stories = getFactory(GRAFT_STORIES_ID) {
            reader.read(stories.assumingMemoryBound(to: graft_stories_t.self), into: &components)
        }
        guard reader.problems.isEmpty else {
            entry.pointee.deinit?()
            return refuse(reader.problems)
        }

        let info = PluginDescription(
            id: id, version: version, name: (name?.isEmpty ?? true) ? id : name!,
            vendor: String(plugin: entry.pointee.vendor), description: String(plugin: entry.pointee.description),
            path: path, imagePath: mapping == .copy ? imagePath : file.realPath, abi: abi, canUnload: !image.containsSwift, components: components,
            validators: validators.map(\.0), actions: actions.map(\.0), permissions: permissions)
        // The rules a host applies to what a child says it found, applied here
        // too: the same plugin is refused the same way in process and in a child.
        let textProblems = info.ruleProblems
        guard textProblems.isEmpty else {
            entry.pointee.deinit?()
            return refuse(textProblems.map { GraftError(.invalidDescriptor, "\(path): \($0).", path: path) })
        }
        return .success(LoadedPlugin(
            info: info,
            image: LoadedPlugin.Image(
                handle: handle, entry: entry, host: host, componentFactory: componentFactory, validators: validators,
                actions: actions)))
    }
}
