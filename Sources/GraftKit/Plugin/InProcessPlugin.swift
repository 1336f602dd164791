import CGraft

/// A plugin that lives in the host's own process: the same registrations as a
/// shared-library plugin, bridged to the same graft.h tables, with no `.so`.
/// Host apps and tests hand it to a host through the GraftInProcess module,
/// and flows cannot tell its components from a plugin's.
///
/// Its C tables are never freed, like those of a loaded Swift plugin, so make
/// one per component you register, not one per render.
public final class InProcessPlugin: Sendable {
    public let info: PluginInfo
    let registry: Registry

    /// Runs `register` once, now, and builds the C tables.
    public init(info: PluginInfo, register: (PluginRegistration) -> Void) {
        self.info = info
        let registration = PluginRegistration()
        register(registration)
        registry = Registry(info: info, registration: registration, host: HostConnection())
    }

    /// What graft.h's rules refuse in the registration; empty when usable.
    public var problems: [String] { registry.problems }

    /// The factories, as `get_factory` would return them (nil when the plugin
    /// registered nothing of that kind, or has problems).
    @_spi(InProcess) public var componentFactory: UnsafeRawPointer? { registry.factory(id: FactoryID.component) }
    @_spi(InProcess) public var validatorFactory: UnsafeRawPointer? { registry.factory(id: FactoryID.validator) }
    @_spi(InProcess) public var actionFactory: UnsafeRawPointer? { registry.factory(id: FactoryID.action) }
}
