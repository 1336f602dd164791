import CGraft

/// An ABI version as `major.minor`.
public struct ABIVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public package(set) var major: Int
    public package(set) var minor: Int

    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// The version this host implements (graft.h's GRAFT_ABI_MAJOR.MINOR).
    public static let host = ABIVersion(major: Int(GRAFT_ABI_MAJOR), minor: Int(GRAFT_ABI_MINOR))

    /// Same major, and a minor no newer than the host's.
    package func isLoadable(by host: ABIVersion = .host) -> Bool { major == host.major && minor <= host.minor }

    public static func < (lhs: ABIVersion, rhs: ABIVersion) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }

    public var description: String { "\(major).\(minor)" }
}

/// A loaded plugin as the host sees it: what it declares, as its scan
/// described it, and where it came from. (GraftKit's `PluginInfo` is what a
/// plugin says of itself.)
public struct PluginDescription: Sendable, Hashable {
    public package(set) var id: String
    public package(set) var version: String
    public package(set) var name: String
    public package(set) var vendor: String?
    public package(set) var description: String?
    /// The file it was loaded from, as found on the search path.
    public package(set) var path: String
    /// The file actually mapped: `path` itself, or a private copy of it when
    /// the host loads copies (hot swap; the dynamic loader caches by path).
    package var imagePath: String
    public package(set) var abi: ABIVersion
    /// Whether the image can ever be closed: false for images containing Swift.
    package var canUnload: Bool
    /// A WebAssembly module (docs/WasmABI.md), not native code: it runs on
    /// any host, and `abi` is the WebAssembly ABI's version.
    package var isWebAssembly = false
    public package(set) var components: [ComponentContract]
    public package(set) var validators: [ValidatorContract]
    public package(set) var actions: [ActionContract]
    /// What the plugin asks of the sandbox, each with its reason (ABI 1.2).
    public package(set) var permissions: [PermissionRequest] = []
    /// Who signed the file, when the host checked its signature (see
    /// `SignaturePolicy`); nil when it did not.
    public package(set) var signer: PluginSigner?
    /// Whether the image is mapped into this process: false for a plugin
    /// known from the scanner or the registry cache that nothing has used yet.
    package var isMapped: Bool = true
    /// Its file was removed while instances use it: it stays registered,
    /// serving them, until the last one closes, and is then forgotten.
    package var isRemoved: Bool = false

    /// The same plugin, by everything it declares (not where it is mapped).
    func declaresSame(as other: PluginDescription) -> Bool {
        id == other.id && version == other.version && abi == other.abi && components == other.components
            && validators == other.validators && actions == other.actions && permissions == other.permissions
    }
}

/// A plugin file that did not load, and why.
public struct PluginFailure: Sendable, Hashable {
    public package(set) var path: String
    public package(set) var error: GraftError
}
