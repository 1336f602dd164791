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
    /// How plugin files the host has not seen are first loaded (default: in
    /// a scanner child).
    public var scanning: Scanning
    /// Where scan results are kept between runs (see LoadingAndTrust.md, "The registry
    /// cache"); nil keeps none. Default: `$XDG_CACHE_HOME/graft`, else `~/.cache/graft`.
    public var cacheFolder: String?
    /// When `loadPlugins()` maps a plugin that scanned clean into this
    /// process: on first use (default), or at once.
    public var mapping: Mapping
    /// Where plugin code runs once loaded: in supervised child processes,
    /// one per plugin (default), which may crash without taking the host
    /// down, or in this process (`.inProcess`: unsandboxed, for plugins
    /// trusted like the app's own code).
    public var isolation: Isolation
    /// WebAssembly guests' bounds checked by guard pages and a process-wide
    /// SIGSEGV/SIGBUS handler instead of in software: only `graft bench wasm`
    /// sets it, to measure the two; a host never does (a plugin must not
    /// change how the host handles its own faults).
    package var wasmHardwareBounds = false
    /// How the children that run plugin code are sandboxed, and what each
    /// plugin is granted (default: the whole sandbox, nothing granted).
    public var sandbox: SandboxSettings
    /// Deadlines and limits for isolated plugins.
    public var limits: IsolationLimits
    /// A `graft.lock` to enforce (`graft lock` writes one): only files whose
    /// content it pins may load. Nil: no pinning.
    public var lockFile: String?
    /// Which plugin answers a bare name that several declare: the name
    /// (`iso_date`, `date_picker@2`; a component, validator or action) to the
    /// plugin id that owns it whenever it is loaded. Names nobody lists go to
    /// the plugin registered first; every plugin answers its qualified names
    /// (`dev.graft.date-picker/iso_date`) whatever is chosen here.
    public var preferredPlugins: [String: String]
    /// Which publishers sign which plugins (minisign signatures beside the
    /// files), and whether every plugin must be signed. Default: none, and
    /// signatures are not read.
    public var signatures: SignaturePolicy

    /// `$XDG_CACHE_HOME/graft`, else `~/.cache/graft`; nil without either.
    public static var defaultCacheFolder: String? { RegistryCache.defaultFolder() }

    public enum Mapping: Sendable, Hashable {
        /// The first time one of its components, validators or actions is used.
        case onFirstUse
        /// While `loadPlugins()` runs.
        case atStart
    }

    public init(
        searchPath: SearchPath = .standard(), trust: TrustPolicy = .strict, loadsFromCopies: Bool = false,
        scanning: Scanning = Scanning(), cacheFolder: String? = GraftConfiguration.defaultCacheFolder,
        mapping: Mapping = .onFirstUse, lockFile: String? = nil, isolation: Isolation = .perPlugin,
        limits: IsolationLimits = IsolationLimits(), sandbox: SandboxSettings = SandboxSettings(),
        preferredPlugins: [String: String] = [:], signatures: SignaturePolicy = SignaturePolicy()
    ) {
        self.signatures = signatures
        self.preferredPlugins = preferredPlugins
        self.isolation = isolation
        self.sandbox = sandbox
        self.limits = limits
        self.lockFile = lockFile
        self.searchPath = searchPath
        self.trust = trust
        self.loadsFromCopies = loadsFromCopies
        self.scanning = scanning
        self.cacheFolder = cacheFolder
        self.mapping = mapping
    }
}

/// Every plugin file is first loaded in a scanner child (`graft-child`),
/// so that a plugin whose constructor or `init` crashes, exits or hangs is
/// reported (`plugin_crashed`, `plugin_timeout`) instead of taking the host
/// down; only files that scanned clean are loaded into the host.
public struct Scanning: Sendable, Hashable {
    /// Scan in a child (true), or load straight into the host (false: for
    /// hosts that trust every plugin).
    public var inChild: Bool
    /// The scanner executable; nil finds it beside the running executable,
    /// then through `GRAFT_CHILD`, then on `PATH`. When none is found, no
    /// plugin loads (`scanner_unavailable`, logged once as an error): plugins
    /// load only in a sandboxed child. Only with the sandbox off does the host
    /// load them in process instead, and say so once, at warning level.
    public var executable: String?
    /// How long one file may take to load in the scanner.
    public var deadline: Duration

    public init(inChild: Bool = true, executable: String? = nil, deadline: Duration = .seconds(10)) {
        self.inChild = inChild
        self.executable = executable
        self.deadline = deadline
    }

    /// Load straight into the host, with no scanner.
    public static let inProcess = Scanning(inChild: false)
}

/// Where a host runs its plugins' code (components, validators, actions).
public enum Isolation: String, Sendable, Hashable, CaseIterable {
    /// In the host's own process: the fastest, unsandboxed, and a crash in a
    /// plugin is a crash of the host. For code trusted like the app's own.
    case inProcess = "in-process"
    /// Each plugin in a child process of its own: a crash, hang or runaway
    /// allocation fails that plugin's call and restarts its process.
    case perPlugin = "per-plugin"
    /// All plugins in one shared child process: one process for all, and a
    /// crash restarts them all.
    case shared
}

/// Deadlines and limits for isolated plugins' calls.
public struct IsolationLimits: Sendable, Hashable {
    /// For create, render, interact, update, state and actions.
    public var call: Duration
    /// For validators.
    public var validator: Duration
    /// An address-space limit per runner child (RLIMIT_AS), in bytes; nil
    /// for none. The default, 512 MiB, is four times what a Swift plugin on
    /// Foundation reserves (112 MiB; a C plugin or a GraftKit one without
    /// Foundation, 40-48 MiB), with room for threads (8 MiB of stack each).
    public var memory: UInt64?
    /// The largest render output accepted, in bytes; more is `output_too_large`.
    public var output: Int
    /// A sandboxed child's private folder (its TMPDIR and HOME, a tmpfs of
    /// its own that goes with it): at most this many bytes, and this many
    /// files and folders. Past either, its writes fail with `ENOSPC`.
    public var privateFolderSize: UInt64
    public var privateFolderFiles: UInt64
    /// The CPU time a child may use per second while no call is in flight
    /// (a plugin's thread left spinning after its call); past it the child
    /// is stopped (`plugin_cpu_idle`) and the next call starts a new one.
    /// Nil: not watched.
    public var idleCPU: Duration?
    /// The fuel a WebAssembly plugin's call may use: about one unit per
    /// operator it executes. Past it the call ends with `plugin_timeout`.
    /// The default, 500 million, is a few tenths of a second of work on
    /// these machines. (`memory` caps a WebAssembly instance's memory too.)
    public var fuel: UInt64

    public static let defaultMemory: UInt64 = 512 << 20
    public static let defaultPrivateFolderSize: UInt64 = 64 << 20
    public static let defaultPrivateFolderFiles: UInt64 = 4096

    public init(
        call: Duration = .seconds(2), validator: Duration = .milliseconds(500), memory: UInt64? = IsolationLimits.defaultMemory,
        output: Int = 4 << 20,
        privateFolderSize: UInt64 = IsolationLimits.defaultPrivateFolderSize,
        privateFolderFiles: UInt64 = IsolationLimits.defaultPrivateFolderFiles, idleCPU: Duration? = .milliseconds(200),
        fuel: UInt64 = 500_000_000
    ) {
        self.fuel = fuel
        self.call = call
        self.validator = validator
        self.memory = memory
        self.output = output
        self.privateFolderSize = privateFolderSize
        self.privateFolderFiles = privateFolderFiles
        self.idleCPU = idleCPU
    }
}

extension ChildSandbox.Request {
    /// This request with the private folder's caps of `limits`.
    func limited(by limits: IsolationLimits) -> Self {
        var request = self
        request.policy.privateSize = limits.privateFolderSize
        request.policy.privateFiles = limits.privateFolderFiles
        return request
    }
}
