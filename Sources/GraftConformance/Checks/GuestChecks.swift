import GraftHost

/// The conformance tests that read a shared library's image or its C entry,
/// as they apply to a WebAssembly plugin (docs/WasmABI.md): the module and
/// its description, the description again in a fresh instance, a fresh
/// instance's components, and what the module exports. The tests that
/// create, render, interact and call go through `RawInstance` and the host
/// as for a `.so`.
enum GuestChecks {
    /// `entry-and-abi`: the module starts, exports what the ABI needs, and describes itself with an id, a version and a name.
    static func entryAndABI(_ probe: ConformanceProbe) {
        probe.step("graft_entry", "instantiating the module and reading its description")
        guard let plugin = probe.load.plugin else {
            for problem in probe.load.problems where DescriptorConsistencyCheck.isAboutEntry(problem) && problem.code != .invalidDescriptor {
                probe.fail(
                    problem.symbol ?? "graft_entry", expected: "a module that starts and describes itself (docs/WasmABI.md)",
                    got: "\(problem.code.rawValue): \(problem.message)")
            }
            return
        }
        let kinds = Dictionary(plugin.guestExports.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
        for (name, kind) in [("graft_entry", "function"), ("graft_buffer", "function"), ("memory", "memory")] where kinds[name] != kind {
            probe.fail(name, expected: "'\(name)' exported as a \(kind)", got: kinds[name].map { "a \($0)" } ?? "no such export")
        }
        let info = plugin.info
        probe.note("WebAssembly ABI \(info.abi), \(info.id) \(info.version)")
        if !EntryAndABICheck.isReverseDNS(info.id) {
            probe.fail("entry", expected: "an id in reverse DNS form, such as \"com.acme.widgets\"", got: "\"\(info.id)\"")
        }
        if !EntryAndABICheck.looksLikeVersion(info.version) {
            probe.warn("entry", expected: "a version such as \"1.4.0\" (digits and dots, then an optional -suffix)", got: "\"\(info.version)\"")
        }
        if info.name.isEmpty { probe.warn("entry", expected: "a human-readable name", got: "none (hosts show the id instead)") }
        for name in ["graft_create", "graft_render", "graft_destroy"] where !info.components.isEmpty && kinds[name] != "function" {
            probe.fail(name, expected: "'\(name)' exported: the plugin declares components", got: "no such function")
        }
        if !info.validators.isEmpty, kinds["graft_validate"] != "function" {
            probe.fail("graft_validate", expected: "'graft_validate' exported: the plugin declares validators", got: "no such function")
        }
        if !info.actions.isEmpty, kinds["graft_action"] != "function" {
            probe.fail("graft_action", expected: "'graft_action' exported: the plugin declares actions", got: "no such function")
        }
    }

    /// `descriptor-consistency`, after the rules the load applied: a fresh
    /// instance describes the same plugin (the host reads the first
    /// instance's description and trusts it for every later one).
    static func descriptionAgain(_ plugin: LoadedPlugin, _ probe: ConformanceProbe) {
        probe.step("graft_entry", "reading the description again in a fresh instance")
        let again: PluginDescription
        do throws(GraftError) {
            again = try plugin.describeGuestAgain()
        } catch {
            probe.fail("graft_entry", expected: "the description again in a fresh instance", got: "\(error.code.rawValue): \(error.message)")
            return
        }
        let first = plugin.info
        if again.id != first.id || again.version != first.version || again.components != first.components
            || again.validators != first.validators || again.actions != first.actions || again.permissions != first.permissions
        {
            probe.fail(
                "description", expected: "the same description from every instance",
                got: "components \(again.components.map(ConformanceKey.component)), validators \(again.validators.map(ConformanceKey.validator)), actions \(again.actions.map(ConformanceKey.action)) the second time")
        }
    }

    /// `init-deinit-init`: the guest's instance is thrown away (as after a
    /// trap, or a grant) and a fresh one starts; every component is then
    /// created from its debugConfig and renders.
    static func reinit(_ plugin: LoadedPlugin, _ probe: ConformanceProbe) {
        descriptionAgain(plugin, probe)
        ReinitCheck.createAndRender(probe.components(of: plugin), "in a fresh instance", probe)
    }

    /// What docs/WasmABI.md names a module may export.
    static let abiExports: Set<String> = [
        "memory", "graft_entry", "graft_buffer", "graft_create", "graft_render", "graft_interact", "graft_update", "graft_save",
        "graft_load", "graft_destroy", "graft_validate", "graft_action", "_initialize",
    ]

    /// `exported-symbols`: a guest's exports share no namespace with anyone,
    /// so other exports are only noted; a `graft_` export the ABI does not
    /// define is likely a misspelt one the host will never call: a warning.
    static func exports(_ probe: ConformanceProbe) {
        guard let plugin = probe.plugin() else { return }
        let names = plugin.guestExports.map(\.name)
        probe.note("\(names.count) export(s)")
        let unknown = names.filter { $0.hasPrefix("graft_") && !abiExports.contains($0) }.sorted()
        if !unknown.isEmpty {
            probe.warn(
                "module", expected: "graft_ exports the WebAssembly ABI defines (docs/WasmABI.md)",
                got: "\(unknown.joined(separator: ", ")), which the host never calls")
        }
    }
}
