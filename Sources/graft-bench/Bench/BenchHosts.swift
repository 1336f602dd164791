import GraftHost

/// The hosts the in-process parts time: what they measured before the
/// scanner existed, and never the user's registry cache.
enum BenchHosts {
    /// Loads straight into this process: no scanner, no cache.
    static func inProcess() -> GraftConfiguration {
        GraftConfiguration(searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, isolation: .inProcess)
    }

    /// A host that hot-swaps in process as an app does: every new build
    /// through the (sandboxed) scanner child first, a cache of its own.
    static func swapping(cache: String) -> GraftConfiguration {
        GraftConfiguration(searchPath: SearchPath(folders: []), loadsFromCopies: true, cacheFolder: cache, isolation: .inProcess)
    }

    /// The plugins in `folder`, each in a runner child of its own.
    static func isolated(folder: String, cache: String) -> GraftConfiguration {
        GraftConfiguration(searchPath: SearchPath(folders: [folder]), cacheFolder: cache, isolation: .perPlugin)
    }
}
