import GraftSupport
import Logging

/// What `graft check --conformance` needs of a WebAssembly plugin, beside
/// the `GraftHost` API: the guest's calls one by one, with their own answers
/// (a create the guest refused, the bytes a render wrote, the media type it
/// set), its exports, and its description read again in a fresh instance.
extension PluginInspection {
    /// Whether the file is a WebAssembly module (its conformance tests drive the guest, not a shared library).
    package static func isWebAssembly(_ file: PluginFile) -> Bool { WasmFile.isModule(file) }

    /// The `.wasm` plugin loaded as a host loads it (its description read and
    /// held to the rules), timed by the caller. With `grantingDeclared`, it is
    /// given what it declares, as a conformance test's child is granted it:
    /// its `read:` folders, and the data folder in `GRAFT_DATA_DIR` (the test
    /// run's own).
    package static func loadGuest(
        _ file: PluginFile, logger: Logger, grantingDeclared: Bool = false
    ) -> (plugin: LoadedPlugin?, problems: [GraftError]) {
        #if WebAssembly
        do throws(GraftError) {
            let (guest, info) = try WasmPlugin.load(file, limits: IsolationLimits(), logger: logger)
            let permissions = grantingDeclared ? info.permissions.map(\.permission) : []
            let id = info.id
            guest.grant(WasmGrants(permissions, dataFolder: ProcessEnvironment.value("GRAFT_DATA_DIR"))) { denials, during in
                for denial in denials { logger.warning("\(denial.code.rawValue): \(denial.sentence(plugin: "plugin '\(id)'", during: during))") }
            }
            return (LoadedPlugin(info: info, guest: guest), [])
        } catch {
            return (nil, [error])
        }
        #else
        return (nil, [GraftError(.wasmUnsupported, "\(file.path) is a WebAssembly module, and this build has no WebAssembly support.", path: file.path)])
        #endif
    }
}

extension PluginInspection {
    /// How long each part of a `.wasm`'s load takes, for `graft bench wasm`:
    /// parsing the module, instantiating it (its memory, its imports,
    /// `_initialize`), and its `graft_entry` writing the description (which
    /// runs guest code, so WasmKit translates what that code calls).
    package static func timeGuestLoad(_ bytes: [UInt8], logger: Logger) throws(GraftError) -> (parse: Duration, instantiate: Duration, describe: Duration) {
        #if WebAssembly
        let clock = ContinuousClock()
        let started = clock.now
        let guest = try WasmPlugin(bytes: bytes, path: "bench.wasm", limits: IsolationLimits(), logger: logger)
        let parsed = clock.now
        try guest.start()
        let instantiated = clock.now
        _ = try guest.describe()
        return (parsed - started, instantiated - parsed, clock.now - instantiated)
        #else
        throw GraftError(.wasmUnsupported, "this build has no WebAssembly support.")
        #endif
    }
}

extension LoadedPlugin {
    /// Whether its code runs in a WebAssembly guest.
    package var isWebAssembly: Bool { guest != nil }

    /// What the guest module exports: each name, and "function", "memory", "table", "global" or "tag".
    package var guestExports: [(name: String, kind: String)] {
        #if WebAssembly
        (guest as? WasmPlugin)?.exportKinds ?? []
        #else
        []
        #endif
    }

    /// Its description as a fresh instance's `graft_entry` writes it, held to the same rules.
    package func describeGuestAgain() throws(GraftError) -> PluginDescription {
        #if WebAssembly
        if let guest = guest as? WasmPlugin { return try guest.describeInFreshInstance() }
        #endif
        throw GraftError(.wasmUnsupported, "\(info.path) is not a WebAssembly plugin in this build.", path: info.path)
    }

    /// Creates `key`@`version` straight in the guest from `inputs` (JSON
    /// bytes, as given: they may not even be JSON); nil when `graft_create`
    /// answers 0. A trap or running out of fuel throws.
    package func makeGuestComponent(key: String, version: Int, inputs: [UInt8], context: InstanceContext) throws(GraftError) -> GuestComponent? {
        #if WebAssembly
        guard let guest = guest as? WasmPlugin else { return nil }
        let handle = WasmPlugin.Handle(key: key, version: version, inputs: inputs)
        do {
            try guest.create(handle, what: "create of \(key)@\(version)", key: key)
        } catch where error.code == .instanceCreateFailed {
            return nil
        }
        return GuestComponent(plugin: guest, handle: handle, context: context)
        #else
        return nil
        #endif
    }
}

/// One component instance in a WebAssembly guest, driven call by call (`makeGuestComponent`).
package final class GuestComponent {
    package struct Rendered {
        package var ok: Bool
        package var bytes: [UInt8]
        /// What the guest set with `graft_set_media_type`, if it did.
        package var mediaType: String?
        package var overflowed: Bool
    }

    #if WebAssembly
    private let plugin: WasmPlugin
    private let handle: WasmPlugin.Handle
    private let context: InstanceContext
    private var destroyed = false

    init(plugin: WasmPlugin, handle: WasmPlugin.Handle, context: InstanceContext) {
        self.plugin = plugin
        self.handle = handle
        self.context = context
    }

    private var key: String { String(decoding: handle.key, as: UTF8.self) }

    /// Runs `name` on the instance; its events go to the context, checked against the contract.
    private func call(_ name: String, _ what: String, data: [[UInt8]]) throws(GraftError) -> WasmPlugin.Answer {
        let answer = try plugin.run(name, [], data: data, what: "\(what) of \(key)", key: key, on: handle)
        for (event, payload) in answer.events { context.emit(event, payload: payload) }
        return answer
    }

    package func render(_ mediaType: String) throws(GraftError) -> Rendered {
        let answer = try call("graft_render", "render", data: [Array(mediaType.utf8)])
        return Rendered(ok: answer.flag, bytes: answer.output, mediaType: answer.mediaType, overflowed: answer.overflowed)
    }

    /// The guest's answer; nil when it exports no `graft_interact`.
    package func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool? {
        guard plugin.exports("graft_interact") else { return nil }
        return try call("graft_interact", "interaction '\(action)'", data: [Array(action.utf8), data.map(WasmPlugin.json) ?? []]).flag
    }

    package func destroy() {
        guard !destroyed else { return }
        destroyed = true
        plugin.destroy(handle, key: key)
    }
    #else
    package func render(_ mediaType: String) throws(GraftError) -> Rendered { Rendered(ok: false, bytes: [], mediaType: nil, overflowed: false) }
    package func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool? { nil }
    package func destroy() {}
    #endif
}
