import CGraft
import GraftHost

/// `descriptor-consistency`: every rule of graft.h on descriptors (the
/// loader's checks, all of them reported), then what the loader takes on
/// trust: counts that do not change, NULL past the end, and the same
/// descriptors on a second read.
enum DescriptorConsistencyCheck {
    /// Refusals about the entry, its ABI or init: entry-and-abi's to report.
    static func isAboutEntry(_ error: GraftError) -> Bool {
        // A WebAssembly module that is not one, imports what Graft does not offer, or traps or loops in graft_entry.
        [.notASharedLibrary, .entrySymbolMissing, .dlopenFailed, .abiIncompatible, .pluginInitFailed, .wasmInvalid, .wasmImportUnknown,
            .wasmUnsupported, .pluginCrashed, .pluginTimeout].contains(error.code)
            || error.symbol == GRAFT_ENTRY_SYMBOL
    }

    static func run(_ probe: ConformanceProbe) {
        let load = probe.load
        guard let plugin = load.plugin else {
            // A WebAssembly plugin's description is all one JSON text its graft_entry writes: its problems are the descriptors'.
            let descriptors = load.problems.filter { !isAboutEntry($0) || (probe.isWebAssembly && $0.code == .invalidDescriptor) }
            if descriptors.isEmpty {
                probe.skip("the plugin's entry is unusable (\(load.problems.first?.code.rawValue ?? "?")); entry-and-abi says why")
            }
            for problem in descriptors {
                probe.fail(
                    problem.key ?? "descriptors", expected: "descriptors that follow graft.h",
                    got: "\(problem.code.rawValue): \(problem.message)")
            }
            return
        }
        if plugin.isWebAssembly { return GuestChecks.descriptionAgain(plugin, probe) }
        guard let image = try? plugin.mapped(), let entry = image.entry, let getFactory = entry.pointee.get_factory else { return }
        probe.step("get_factory", "reading every factory a second time")
        if let raw = getFactory(GRAFT_COMPONENT_FACTORY_ID) {
            let factory = raw.assumingMemoryBound(to: graft_component_factory_t.self)
            stable("component", count: factory.pointee.count.map { count in { count(factory) } }, probe) { index in
                factory.pointee.get_descriptor?(factory, index) != nil
            }
        }
        if let raw = getFactory(GRAFT_VALIDATOR_FACTORY_ID) {
            let factory = raw.assumingMemoryBound(to: graft_validator_factory_t.self)
            stable("validator", count: factory.pointee.count.map { count in { count(factory) } }, probe) { index in
                factory.pointee.get_descriptor?(factory, index) != nil
            }
        }
        if let raw = getFactory(GRAFT_ACTION_FACTORY_ID) {
            let factory = raw.assumingMemoryBound(to: graft_action_factory_t.self)
            stable("action", count: factory.pointee.count.map { count in { count(factory) } }, probe) { index in
                factory.pointee.get_descriptor?(factory, index) != nil
            }
        }
        let again = PluginInspection.Declarations(reading: { getFactory($0) }, path: plugin.info.path, abiMinor: plugin.info.abi.minor)
        compare("component", plugin.info.components.map(ConformanceKey.component), again.components.map(ConformanceKey.component),
            plugin.info.components == again.components, probe)
        compare("validator", plugin.info.validators.map(ConformanceKey.validator), again.validators.map(ConformanceKey.validator),
            plugin.info.validators == again.validators, probe)
        compare("action", plugin.info.actions.map(ConformanceKey.action), again.actions.map(ConformanceKey.action),
            plugin.info.actions == again.actions, probe)
        for problem in again.problems {
            probe.fail(problem.key ?? "descriptors", expected: "the same valid descriptors on a second read", got: problem.message)
        }
        probe.note(
            "\(plugin.info.components.count) component(s), \(plugin.info.validators.count) validator(s), \(plugin.info.actions.count) action(s)")
    }

    /// count() gives the same number twice, and get_descriptor(count) is NULL.
    private static func stable(
        _ kind: String, count: (() -> UInt32)?, _ probe: ConformanceProbe, descriptorExists: (UInt32) -> Bool
    ) {
        guard let count else { return }
        let first = count(), second = count()
        if first != second {
            probe.fail("\(kind) factory", expected: "count() to stay the same between init and deinit", got: "\(first), then \(second)")
        }
        guard first < UInt32(PluginInspection.maximumDescriptors) else { return }
        if descriptorExists(first) {
            probe.fail("\(kind) factory", expected: "get_descriptor(\(first)) = NULL (count() is \(first))", got: "a descriptor")
        }
    }

    private static func compare(_ kind: String, _ first: [String], _ second: [String], _ same: Bool, _ probe: ConformanceProbe) {
        guard !same else { return }
        probe.fail(
            "\(kind) factory", expected: "the same \(kind) descriptors on every read (\(first.joined(separator: ", ")))",
            got: second.isEmpty ? "none" : second.joined(separator: ", ") + (first == second ? " with different contents" : ""))
    }
}
