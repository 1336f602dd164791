/// A plugin written in Swift: who it is, and what it registers.
///
/// Export it from the shared library with one line:
///
/// ```swift
/// @_cdecl("graft_entry") public func graftEntry() -> UnsafeRawPointer { MyPlugin.entry }
/// ```
///
/// A shared library holds one plugin: the C entry points carry no context,
/// so GraftKit keeps one plugin per image and stops the program if a second
/// type asks for an entry.
///
/// The plugin type is used from whatever thread the host calls on, so its
/// conformance must not be isolated to an actor (`SendableMetatype`).
public protocol GraftPlugin: SendableMetatype {
    static var info: PluginInfo { get }
    /// Registers components, validators and actions. Called once, lazily,
    /// when the host first initializes the plugin or asks for a factory.
    static func register(in plugin: PluginRegistration)
}

extension GraftPlugin {
    /// The `graft_plugin_entry_t` the exported `graft_entry` returns. Built on
    /// first use from ``info`` (registration waits for the host's `init`), then
    /// the same pointer for the life of the image.
    public static var entry: UnsafeRawPointer {
        UnsafeRawPointer(PluginImage.install(Self.self).entry)
    }
}
