import CGraft

/// An ABI version as `major.minor`.
public struct ABIVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// The version this host implements (graft.h's GRAFT_ABI_MAJOR.MINOR).
    public static let host = ABIVersion(major: Int(GRAFT_ABI_MAJOR), minor: Int(GRAFT_ABI_MINOR))

    /// Same major, and a minor no newer than the host's.
    public func isLoadable(by host: ABIVersion = .host) -> Bool { major == host.major && minor <= host.minor }

    public static func < (lhs: ABIVersion, rhs: ABIVersion) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }

    public var description: String { "\(major).\(minor)" }
}

/// A loaded plugin as the host sees it.
public struct PluginInfo: Sendable, Hashable {
    public var id: String
    public var version: String
    public var name: String
    public var vendor: String?
    public var description: String?
    /// The file it was loaded from, as found on the search path.
    public var path: String
    /// The file actually mapped: `path` itself, or a private copy of it when
    /// the host loads copies (hot swap; the dynamic loader caches by path).
    public var imagePath: String
    public var abi: ABIVersion
    /// Whether the image can ever be closed: false for images containing Swift.
    public var canUnload: Bool
    public var components: [ComponentContract]
    public var validators: [ValidatorContract]
    public var actions: [ActionContract]
    /// Whether the image is mapped into this process: false for a plugin
    /// known from the scanner or the registry cache that nothing has used yet.
    public var isMapped: Bool = true

    /// The same plugin, by everything it declares (not where it is mapped).
    func declaresSame(as other: PluginInfo) -> Bool {
        id == other.id && version == other.version && abi == other.abi && components == other.components
            && validators == other.validators && actions == other.actions
    }
}

/// A plugin file that did not load, and why.
public struct PluginFailure: Sendable, Hashable {
    public var path: String
    public var error: GraftError

    public init(path: String, error: GraftError) {
        self.path = path
        self.error = error
    }
}
