/// Something a plugin may need beyond the sandbox's nothing: declared by the
/// plugin (with a reason shown to people), granted by the host per plugin id
/// (`SandboxSettings.grants`, the CLI's `--grant`, a lock file), enforced by
/// the kernel in the plugin's child process.
///
/// Written as text everywhere a person types or reads one: `network:443`,
/// `network:80,443`, `network:any`, `read:/srv/assets`, `data`.
public enum Permission: Sendable, Hashable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    /// TCP connections to these ports, on any address.
    case connect(ports: [UInt16])
    /// Every TCP and UDP connection.
    case anyNetwork
    /// Reading the files in a folder (and its subfolders).
    case read(folder: String)
    /// A private folder, the plugin's own, to write: the host makes it
    /// (`$XDG_DATA_HOME/graft/plugins/ID`) and passes it as `GRAFT_DATA_DIR`.
    case dataFolder

    public var description: String {
        switch self {
        case .connect(let ports): "network:" + ports.map(String.init).joined(separator: ",")
        case .anyNetwork: "network:any"
        case .read(let folder): "read:" + folder
        case .dataFolder: "data"
        }
    }

    /// Reads the text form; nil for anything else (a port out of range, a
    /// relative folder, an unknown kind).
    public init?(_ text: String) {
        if text == "data" {
            self = .dataFolder
        } else if text == "network:any" {
            self = .anyNetwork
        } else if text.hasPrefix("network:") {
            let ports = text.dropFirst("network:".count).split(separator: ",", omittingEmptySubsequences: false).map { UInt16($0) }
            guard !ports.isEmpty, ports.allSatisfy({ $0 != nil && $0 != 0 }) else { return nil }
            self = .connect(ports: ports.map { $0! })
        } else if text.hasPrefix("read:"), text.dropFirst("read:".count).hasPrefix("/") {
            self = .read(folder: String(text.dropFirst("read:".count)))
        } else {
            return nil
        }
    }

    public static func < (left: Permission, right: Permission) -> Bool { left.description < right.description }

    /// Whether `granted` allows at least what this permission asks.
    package func isCovered(by granted: [Permission]) -> Bool {
        switch self {
        case .anyNetwork: return granted.contains(.anyNetwork)
        case .connect(let ports):
            if granted.contains(.anyNetwork) { return true }
            var allowed = Set<UInt16>()
            for case .connect(let granted) in granted { allowed.formUnion(granted) }
            return ports.allSatisfy { allowed.contains($0) }
        case .read(let folder):
            return granted.contains { if case .read(let grant) = $0 { folder == grant || folder.hasPrefix(grant.hasSuffix("/") ? grant : grant + "/") } else { false } }
        case .dataFolder: return granted.contains(.dataFolder)
        }
    }
}
