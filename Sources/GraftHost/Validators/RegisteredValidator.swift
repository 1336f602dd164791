import CGraft

/// A validator the host can call, with the plugin that provides it. A class,
/// so a lookup hands out one reference.
public final class RegisteredValidator: Sendable {
    public let contract: ValidatorContract
    public let pluginID: String
    /// `pluginID` as its outcomes carry it (`PluginNumbers`).
    let pluginNumber: UInt32
    public let pluginPath: String
    /// Nil for a validator of an isolated plugin: it runs in the plugin's runner child.
    package let descriptor: UnsafeDescriptor?
    /// Owns the prepared call of a native validator.
    let native: NativeFunction?
    /// `native`'s call and fast path, plain values kept inline so the hot
    /// path retains nothing.
    package let nativeCall: NativeCall?
    let fastPath: NativeFunction.FastPath?
    /// Keeps the image mapped while a lookup's result is in use.
    let plugin: LoadedPlugin
    /// The plugin's telemetry, kept here: the hot path reads one field.
    let telemetry: PluginTelemetry?

    init(contract: ValidatorContract, plugin: LoadedPlugin, descriptor: UnsafeDescriptor?, native: NativeFunction?) {
        self.contract = contract
        self.plugin = plugin
        self.telemetry = plugin.telemetry
        self.pluginID = plugin.info.id
        self.pluginNumber = PluginNumbers.number(for: plugin.info.id)
        self.pluginPath = plugin.info.path
        self.descriptor = descriptor
        self.native = native
        self.nativeCall = native?.call
        self.fastPath = native?.fastPath
    }

    /// The plugin's descriptor; valid until the plugin is unloaded, which
    /// happens only after it leaves the registry.
    package struct UnsafeDescriptor: @unchecked Sendable {
        package let pointer: UnsafePointer<graft_validator_descriptor_t>
    }
}

/// How a native validator is called: the typed fast path where the signature
/// has one, libffi otherwise; `.libffi` forces libffi (tests, benchmarks).
package enum NativeCallPath: Sendable {
    case automatic
    case libffi
}
