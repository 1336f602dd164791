/// Everything a host application decides about its plugins, in one value:
/// where they are, which files are trusted, and how they are mapped. The
/// defaults are the safe ones.
///
///     var configuration = GraftConfiguration(searchPath: .standard(explicit: ["/opt/app/plugins"]))
///     configuration.trust = TrustPolicy(allowsUntrusted: true)   // development only
///     let host = GraftHost(configuration: configuration)
public struct GraftConfiguration: Sendable {
    public var searchPath: SearchPath
    /// Which files may load (default: strict; see `TrustPolicy`).
    public var trust: TrustPolicy
    /// Map every plugin from a private copy of its file, so the file can be
    /// rebuilt or rewritten in place while the host runs (hot swap).
    public var loadsFromCopies: Bool

    public init(searchPath: SearchPath = .standard(), trust: TrustPolicy = .strict, loadsFromCopies: Bool = false) {
        self.searchPath = searchPath
        self.trust = trust
        self.loadsFromCopies = loadsFromCopies
    }
}
