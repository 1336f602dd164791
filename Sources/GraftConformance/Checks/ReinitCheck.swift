import CGraft
import GraftHost

/// `init-deinit-init`: graft.h lets a host load an image it never unloads
/// (any image containing Swift) a second time, so the plugin sees init again
/// after deinit in the same process. Statics a plugin frees in deinit, or a
/// "started" flag it never clears, break that load.
enum ReinitCheck {
    static func run(_ probe: ConformanceProbe) {
        if probe.isWebAssembly, let plugin = probe.plugin() { return GuestChecks.reinit(plugin, probe) }
        guard let plugin = probe.plugin(), let image = try? plugin.mapped(), let entry = image.entry, let host = image.host,
            let initialize = entry.pointee.`init`, let getFactory = entry.pointee.get_factory
        else { return }
        if let deinitialize = entry.pointee.deinit {
            probe.step("deinit", "calling deinit after the first init")
            deinitialize()
        } else {
            probe.note("deinit is NULL: init is called a second time with no deinit between")
        }
        probe.step("init", "calling init a second time, after deinit")
        guard initialize(host.pointer) else {
            probe.fail("init", expected: "init to return true again after deinit (same process, image still mapped)", got: "false")
            return
        }
        probe.step("get_factory", "reading the descriptors after the second init")
        let again = PluginInspection.Declarations(reading: { getFactory($0) }, path: plugin.info.path, abiMinor: plugin.info.abi.minor)
        for problem in again.problems {
            probe.fail(problem.key ?? "descriptors", expected: "valid descriptors after the second init", got: problem.message)
        }
        if !again.declare(sameAs: plugin.info) {
            probe.fail(
                "descriptors", expected: "the same descriptors after the second init",
                got: "components \(again.components.map(ConformanceKey.component)), validators \(again.validators.map(ConformanceKey.validator)), actions \(again.actions.map(ConformanceKey.action))")
        }
        // The first init's factories are gone (valid until deinit): the
        // components are made again through the second init's.
        let reloaded = LoadedPlugin(
            info: plugin.info,
            image: LoadedPlugin.Image(
                handle: image.handle, entry: entry, host: host,
                componentFactory: getFactory(GRAFT_COMPONENT_FACTORY_ID)?.assumingMemoryBound(to: graft_component_factory_t.self),
                validators: [], actions: []))
        // Never released: releasing a LoadedPlugin calls deinit, which this
        // test calls itself, once per init.
        _ = Unmanaged.passRetained(reloaded)
        createAndRender(again.components.map { RegisteredComponent(contract: $0, plugin: reloaded) }, "after the second init", probe)
        if let deinitialize = entry.pointee.deinit {
            probe.step("deinit", "calling deinit after the second init")
            deinitialize()
        }
    }

    /// Each component created from its debugConfig and rendered as text/plain, `when` ("after the second init").
    static func createAndRender(_ components: [RegisteredComponent], _ when: String, _ probe: ConformanceProbe) {
        for component in components {
            let key = ConformanceKey.component(component.contract)
            probe.step(key, "creating it from its debugConfig \(when)")
            guard case .instance(let instance) = RawInstance.create(component, inputs: component.contract.debugConfig, probe: probe) else {
                probe.fail(key, expected: "an instance from its debugConfig \(when)", got: "none")
                continue
            }
            probe.step(key, "rendering it \(when)")
            if !instance.render("text/plain").ok {
                probe.fail(key, expected: "render to succeed \(when)", got: "it did not")
            }
            instance.destroy()
        }
    }
}
