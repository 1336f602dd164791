/// Something a plugin needs beyond its sandbox, with the reason shown to the
/// people who decide whether to grant it (graft.h's `graft.permissions/1`).
/// A plugin's code runs in a sandboxed child process that may read the
/// system's libraries and write its own temporary folder, and nothing else:
/// declare only what the plugin cannot work without. A host that does not
/// grant it still runs the plugin; the refused acts fail with an error code.
///
/// ```swift
/// static let info = PluginInfo(
///     id: "com.acme.weather", version: "1.0.0", name: "Weather",
///     permissions: [.networkConnections(ports: [443], reason: "Fetches the forecast from api.acme.com.")])
/// ```
public struct PluginPermission: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case connect([UInt16])
        case anyNetwork
        case read(String)
        case dataFolder
    }

    let kind: Kind
    /// Why the plugin needs it, in one sentence.
    public let reason: String

    /// TCP connections to `ports`, on any address.
    public static func networkConnections(ports: [UInt16], reason: String) -> PluginPermission {
        PluginPermission(kind: .connect(ports), reason: reason)
    }

    /// Every TCP and UDP connection.
    public static func anyNetworkConnection(reason: String) -> PluginPermission {
        PluginPermission(kind: .anyNetwork, reason: reason)
    }

    /// Reading the files in `folder` (an absolute path) and below.
    public static func readFolder(_ folder: String, reason: String) -> PluginPermission {
        PluginPermission(kind: .read(folder), reason: reason)
    }

    /// A private folder to write, kept between runs; its path is in the
    /// `GRAFT_DATA_DIR` environment variable.
    public static func dataFolder(reason: String) -> PluginPermission {
        PluginPermission(kind: .dataFolder, reason: reason)
    }
}
