import CGraft
import Logging

/// What a tool that examines one plugin file at the ABI level (the
/// conformance checker, in a child of its own) needs of the loader, and no
/// more: the image's symbols, a load as a sandboxed child loads, a mapping
/// name to `dlopen` by hand, and the descriptors read as the host reads them.
/// The loader's own types stay inside GraftHost.
package enum PluginInspection {
    /// How `graft_entry` appears in the image's dynamic symbol table.
    package enum EntrySymbol: Sendable, Equatable {
        case function
        case missing
        /// Exported, but not as a function (STT_OBJECT, say): calling it would jump into data.
        case notAFunction(type: UInt8)
    }

    /// How the file exports `graft_entry`; throws `not_a_shared_library`.
    package static func entrySymbol(of file: PluginFile) throws(GraftError) -> EntrySymbol {
        try ELFImage(file: file).entry
    }

    /// The names the image exports (defined, global or weak dynamic symbols).
    package static func exportedSymbols(of file: PluginFile) throws(GraftError) -> [String] {
        try ELFImage.exportedSymbols(of: file)
    }

    /// Calls `body` with a path `dlopen` maps the file through, as a
    /// sandboxed child maps it (from memory); the name is released after.
    package static func withMappingName<R>(of file: PluginFile, _ body: (String) -> R) throws(GraftError) -> R {
        let name = try ImageStore().name(for: file, mapping: ChildSandbox.mapping(copy: false))
        defer { name.release() }
        return body(name.path)
    }

    /// The plugin loaded as a sandboxed child loads it: ELF checks, dlopen
    /// (its constructors), graft_entry, the ABI check, init, every
    /// descriptor, the native signatures prepared; or, with no plugin, every
    /// problem found. Never unloaded: the caller's process ends with `_exit`.
    package static func load(_ file: PluginFile, logger: Logger) -> (plugin: LoadedPlugin?, problems: [GraftError]) {
        load(file, mapping: ChildSandbox.mapping(copy: false), logger: logger)
    }

    /// `load(_:logger:)` with the mapping chosen (`graft check` in process maps the descriptor's name).
    static func load(
        _ file: PluginFile, mapping: PluginLoader.ImageSource, logger: Logger
    ) -> (plugin: LoadedPlugin?, problems: [GraftError]) {
        switch PluginLoader(logger: logger).open(file, mapping: mapping, images: ImageStore()) {
        case .failure(let problems):
            return (nil, problems.errors)
        case .success(let plugin):
            // Kept mapped: the plugin's own threads may still run in it.
            plugin.staysMapped.store(true, ordering: .relaxed)
            do throws(GraftError) {
                _ = try ValidatorRegistry().prepare(plugin)
            } catch {
                return (nil, [error])
            }
            return (plugin, [])
        }
    }

    /// The most descriptors a factory may declare (graft.h's `GRAFT_MAX_DESCRIPTORS`).
    package static let maximumDescriptors = DescriptorReader.maximumDescriptors

    /// Everything the factories behind `getFactory` declare, read and checked
    /// as the host reads them, with every problem found.
    package struct Declarations {
        package var components: [ComponentContract] = []
        package var validators: [ValidatorContract] = []
        package var actions: [ActionContract] = []
        package var problems: [GraftError] = []

        /// `getFactory` is the plugin's own (`entry.get_factory`); `path`
        /// names the plugin in problems.
        package init(reading getFactory: (String) -> UnsafeRawPointer?, path: String, abiMinor: Int) {
            var reader = DescriptorReader(path: path, abiMinor: abiMinor)
            components = reader.read(getFactory(GRAFT_COMPONENT_FACTORY_ID), as: graft_component_factory_t.self)
                .map(\.0)
            validators = reader.read(getFactory(GRAFT_VALIDATOR_FACTORY_ID), as: graft_validator_factory_t.self)
                .map(\.0)
            actions = reader.read(getFactory(GRAFT_ACTION_FACTORY_ID), as: graft_action_factory_t.self).map(\.0)
            if abiMinor >= 3, let stories = getFactory(GRAFT_STORIES_ID) {
                reader.read(stories.assumingMemoryBound(to: graft_stories_t.self), into: &components)
            }
            problems = reader.problems
        }

        /// Whether they declare what `info` says the plugin declares.
        package func declare(sameAs info: PluginDescription) -> Bool {
            components == info.components && validators == info.validators && actions == info.actions
        }
    }
}
