/// What scanning one plugin file found.
enum ScanOutcome: Sendable {
    /// It loaded and passed every check; this is everything it declares.
    case described(PluginDescription)
    /// It was refused, with every problem found.
    case refused([GraftError])
    /// It crashed or hung the process that loaded it (`plugin_crashed`,
    /// `plugin_timeout`): it must never be loaded in process.
    case crashed(GraftError)
}
