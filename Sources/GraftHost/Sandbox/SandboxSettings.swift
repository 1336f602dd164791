import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// How a host sandboxes the child processes that run plugin code (the
/// scanner, the runners, the conformance tests), and what it grants each
/// plugin. The default is the safe one: the whole sandbox, nothing granted.
///
///     var configuration = GraftConfiguration()
///     configuration.sandbox.grants["com.acme.weather"] = [.connect(ports: [443])]
public struct SandboxSettings: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Every part of the sandbox, or no plugin code runs: where the kernel
        /// lacks Landlock or seccomp, plugins fail with `sandbox_unavailable`.
        case enforced
        /// What the kernel has; what it lacks is named once, in a
        /// `sandbox_unavailable` warning, and plugins run without it.
        case bestEffort = "best-effort"
        /// No sandbox: children run plugins with the host's rights and
        /// environment. For plugins trusted like the app's own code.
        case off
    }

    public var mode: Mode
    /// What each plugin, by id, is granted. A plugin granted anything runs in
    /// a child of its own, even in a host with `.shared` isolation.
    public var grants: [String: [Permission]]
    /// Where data folders (`Permission.dataFolder`) are made, one per plugin
    /// id; nil: `$XDG_DATA_HOME/graft/plugins`, else `~/.local/share/graft/plugins`.
    public var dataFolder: String?
    /// The most a plugin's data folder may hold, in bytes (each file and
    /// folder at least 4 KiB); past it, the plugin's writes there fail and
    /// the host reports `plugin_storage_limit`. `dataFolderLimits` sets it
    /// for a plugin id.
    public var dataFolderLimit: UInt64
    public var dataFolderLimits: [String: UInt64]

    public static let defaultDataFolderLimit: UInt64 = 64 << 20

    public init(
        mode: Mode = .enforced, grants: [String: [Permission]] = [:], dataFolder: String? = nil,
        dataFolderLimit: UInt64 = SandboxSettings.defaultDataFolderLimit, dataFolderLimits: [String: UInt64] = [:]
    ) {
        self.mode = mode
        self.grants = grants
        self.dataFolder = dataFolder
        self.dataFolderLimit = dataFolderLimit
        self.dataFolderLimits = dataFolderLimits
    }

    /// The data folder limit of the plugin `id`.
    package func dataFolderLimit(forPlugin id: String) -> UInt64 { dataFolderLimits[id] ?? dataFolderLimit }
}

extension ChildSandbox {
    /// A sandbox as one child is started with it: the policy and what happens
    /// when the kernel cannot apply all of it.
    package struct Request: Sendable, Hashable {
        package var policy: SandboxPolicy
        package var mode: SandboxSettings.Mode
        /// Namespaces of its own (a tmpfs private folder, network, IPC, /proc);
        /// false only for `graft bench sandbox`, to time what they cost.
        package var namespaces = true

        package init(policy: SandboxPolicy = SandboxPolicy(), mode: SandboxSettings.Mode) {
            self.policy = policy
            self.mode = mode
        }
    }
}

extension SandboxSettings {
    /// The request for a child that runs code of no plugin in particular (the
    /// scanner: nothing is granted to code not yet described), or nil when off.
    package var request: ChildSandbox.Request? {
        mode == .off ? nil : ChildSandbox.Request(mode: mode)
    }

    /// The request for the child of the plugin with `id`: its grants added.
    /// Throws when a granted data folder cannot be made.
    package func request(forPlugin id: String) throws(GraftError) -> ChildSandbox.Request? {
        guard var request else { return nil }
        let granted = grants[id] ?? []
        if granted.contains(where: { if case .connect = $0 { true } else { $0 == .anyNetwork } }) {
            // What a program that connects reads: certificates, names, services.
            request.policy.readPaths += Self.networkFiles
        }
        for permission in granted {
            switch permission {
            case .connect(let ports): request.policy.connectPorts += ports
            case .anyNetwork: request.policy.anyNetwork = true
            case .read(let folder): request.policy.readPaths.append(folder)
            case .dataFolder:
                let folder = try dataFolder(forPlugin: id)
                request.policy.writeFolders.append(folder)
                request.policy.dataFolder = folder
                // A file may take a quarter of the folder: RLIMIT_FSIZE bounds what an open file adds past the host's look.
                let limit = dataFolderLimit(forPlugin: id)
                request.policy.dataLimit = limit
                request.policy.maxFileSize = min(request.policy.maxFileSize, max(limit / 4, 4096))
            }
        }
        return request
    }

    /// Read by a plugin granted network connections: CA certificates, and
    /// the files name resolution reads (names resolve through /etc/hosts,
    /// or DNS where UDP is granted too: `network:any`).
    static let networkFiles = [
        "/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf",
        "/etc/gai.conf", "/etc/host.conf", "/etc/services",
    ]

    /// The plugin's data folder, made (mode 0700) if missing.
    func dataFolder(forPlugin id: String) throws(GraftError) -> String {
        guard !id.isEmpty, id != ".", id != "..", id.utf8.allSatisfy({ Self.isIDByte($0) }) else {
            throw GraftError(.permissionDenied, "plugin id '\(id.escapingControls)' cannot name a data folder (letters, digits, '.', '-' and '_' only).")
        }
        guard let folder = dataFolderPath(forPlugin: id) else {
            throw GraftError(.permissionDenied, "plugin '\(id)' is granted a data folder, but neither XDG_DATA_HOME nor HOME is set.")
        }
        guard FilePaths.makeFolders(folder, mode: 0o700) else {
            throw GraftError(.permissionDenied, "could not make the data folder of plugin '\(id)' at \(folder).", path: folder)
        }
        // A root host's children run as nobody (`SandboxPolicy.runAsUser`): the folder is theirs.
        if geteuid() == 0 { _ = lchown(folder, 65534, 65534) }
        return folder
    }

    /// Where the data folder of plugin `id` is (made or not), or nil without a place for data folders.
    package func dataFolderPath(forPlugin id: String) -> String? {
        (dataFolder ?? Self.defaultDataFolder()).map { $0 + "/" + id }
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 46 || byte == 45 || byte == 95
    }

    static func defaultDataFolder() -> String? {
        if let xdg = ProcessEnvironment.value("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/graft/plugins" }
        if let home = ProcessEnvironment.value("HOME"), home.hasPrefix("/") { return home + "/.local/share/graft/plugins" }
        return nil
    }
}
