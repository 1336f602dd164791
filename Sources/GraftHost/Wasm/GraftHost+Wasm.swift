import Logging

/// WebAssembly plugins: a `.wasm` file on the search path, or given to
/// `load(pluginAt:)`, passes the same trust, pin and signature checks as a
/// `.so`, is described by its own `graft_entry` (no scanner child: WasmKit
/// contains it), and registers under the same rules. Without the
/// `WebAssembly` trait, such a file is refused with `wasm_unsupported`.
enum WasmFile {
    /// The name a search path takes for a WebAssembly plugin.
    static let suffix = ".wasm"

    /// Whether the file starts as a WebAssembly binary module does (`\0asm`).
    static func isModule(_ file: PluginFile) -> Bool {
        file.size >= 8 && file.read(at: 0, count: 4) == [0x00, 0x61, 0x73, 0x6D]
    }
}

#if WebAssembly
extension WasmPlugin {
    /// The guest of the file, and its description as it read it (its image path the file's real one).
    static func load(
        _ file: PluginFile, limits: IsolationLimits, logger: Logger, hardwareBounds: Bool = false
    ) throws(GraftError) -> (WasmPlugin, PluginDescription) {
        let guest = try WasmPlugin(bytes: file.read(at: 0, count: file.size), path: file.path, limits: limits, logger: logger, hardwareBounds: hardwareBounds)
        var info = try guest.describe()
        info.imagePath = file.realPath
        return (guest, info)
    }
}
#endif

extension LoadedPlugin {
    /// A plugin whose code runs in `guest`: no image is mapped.
    convenience init(info: PluginDescription, guest: any PluginGuest) {
        self.init(info: info, image: Image(handle: nil, entry: nil, host: nil, componentFactory: nil, validators: [], actions: []), guest: guest)
    }
}

extension GraftHost {
    /// The guest of a WebAssembly file, its description checked as a `.so`'s would be.
    func loadGuest(_ file: PluginFile, hash: String?) throws(GraftError) -> LoadedPlugin {
        #if WebAssembly
        let (guest, described) = try WasmPlugin.load(file, limits: configuration.limits, logger: logger, hardwareBounds: configuration.wasmHardwareBounds)
        var info = described
        if let hash { try checkPinnedPermissions(of: info, hash: hash) }
        info.signer = try checkSignature(file, declaring: info, hash: hash)
        // Granted folders become preopened ones (docs/WasmABI.md, "Permissions").
        let (id, path) = (info.id, info.path)
        let grants = try sandboxSettings.wasmGrants(forPlugin: id)
        for folder in grants.withheld {
            logger.warning(
                "permission_denied: plugin '\(id)' (\(path)) is granted read:\(folder), which a WebAssembly plugin is not given: it runs in the host's process, and would read the host itself there.",
                metadata: ["plugin": "\(path)"])
        }
        guest.grant(grants) { [weak self] denials, during in
            self?.noteSandboxDenials(denials, pluginID: id, path: path, during: during)
        }
        return LoadedPlugin(info: info, guest: guest)
        #else
        throw GraftError(
            .wasmUnsupported,
            "\(file.path) is a WebAssembly module, and this host was built without WebAssembly support (the package's WebAssembly trait).",
            path: file.path)
        #endif
    }
}
