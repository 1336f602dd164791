import CGraft
import Synchronization

/// The one plugin of this shared library and its C entry.
///
/// graft.h's entry functions (`init`, `deinit`, `get_factory`) receive no
/// context pointer, so they find the plugin through ``current``: one plugin
/// per image.
final class PluginImage: Sendable {
    private static let installed = Mutex<PluginImage?>(nil)

    /// The plugin whose `entry` the image exported, if any.
    static var current: PluginImage? { installed.withLock { $0 } }

    /// Installs `plugin` as the image's plugin on the first call; later calls
    /// return the same image. A second plugin type is a programming error.
    static func install<Plugin: GraftPlugin>(_ plugin: Plugin.Type) -> PluginImage {
        installed.withLock { slot in
            if let image = slot {
                precondition(image.pluginType == ObjectIdentifier(Plugin.self), """
                    GraftKit: one shared library exports one plugin, but both \
                    \(image.info.id) and \(Plugin.info.id) asked for an entry.
                    """)
                return image
            }
            let image = PluginImage(
                pluginType: ObjectIdentifier(Plugin.self), info: Plugin.info,
                register: { Plugin.register(in: $0) })
            slot = image
            return image
        }
    }

    let pluginType: ObjectIdentifier
    let info: PluginInfo
    /// Never freed: it must outlive every host that reads it (see PermanentMemory).
    let entryAddress: UInt
    let host = HostConnection()
    private let register: @Sendable (PluginRegistration) -> Void
    private let built = Mutex<Registry?>(nil)

    var entry: UnsafePointer<graft_plugin_entry_t> {
        UnsafePointer(bitPattern: entryAddress)!
    }

    init(pluginType: ObjectIdentifier, info: PluginInfo,
         register: @escaping @Sendable (PluginRegistration) -> Void) {
        self.pluginType = pluginType
        self.info = info
        self.register = register
        var entry = graft_plugin_entry_t()
        entry.abi = graft_abi_version_t(major: UInt32(GRAFT_ABI_MAJOR), minor: UInt32(GRAFT_ABI_MINOR))
        // C's sizeof includes tail padding, which is Swift's stride, not its size.
        entry.struct_size = UInt32(MemoryLayout<graft_plugin_entry_t>.stride)
        entry.id = PermanentMemory.string(info.id)
        entry.version = PermanentMemory.string(info.version)
        entry.name = PermanentMemory.string(info.name)
        entry.vendor = PermanentMemory.string(info.vendor)
        entry.description = PermanentMemory.string(info.description)
        entry.`init` = { host in PluginImage.current?.initialize(host: host) ?? false }
        entry.`deinit` = { PluginImage.current?.shutdown() }
        entry.get_factory = { id in
            guard let id, let image = PluginImage.current else { return nil }
            return image.registry.factory(id: String(cString: id))
        }
        entryAddress = UInt(bitPattern: PermanentMemory.single(entry))
    }

    /// What the plugin registered; registration runs once, on first use.
    var registry: Registry {
        built.withLock { built in
            if let registry = built { return registry }
            let registration = PluginRegistration()
            register(registration)
            let registry = Registry(info: info, registration: registration, host: host)
            built = registry
            return registry
        }
    }

    /// `init`: keeps the host for logging, refuses a host of another ABI
    /// major and a registration with problems (logging each of them).
    func initialize(host pointer: UnsafePointer<graft_host_t>?) -> Bool {
        guard let pointer else { return false }
        host.connect(pointer)
        let abi = pointer.pointee.abi
        guard abi.major == UInt32(GRAFT_ABI_MAJOR) else {
            host.log(.error, "\(info.id) was built for Graft ABI \(GRAFT_ABI_MAJOR).\(GRAFT_ABI_MINOR); the host speaks \(abi.major).\(abi.minor).")
            host.disconnect()
            return false
        }
        let problems = registry.problems
        guard problems.isEmpty else {
            for problem in problems { host.log(.error, "\(info.id): \(problem)") }
            host.disconnect()
            return false
        }
        return true
    }

    /// `deinit`: forgets the host. Descriptors stay, for a later `init`.
    func shutdown() {
        host.disconnect()
    }
}
