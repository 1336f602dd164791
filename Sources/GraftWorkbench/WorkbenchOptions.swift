/// How a workbench runs. The defaults are the safe ones: a port the kernel
/// picks, a new random token, plugin folders watched.
public struct WorkbenchOptions: Sendable {
    /// The loopback port to listen on; 0 lets the kernel pick a free one.
    public var port: Int
    /// A flow document to run screen by screen (`--flow`).
    public var flowPath: String?
    /// A running host's debug socket to show (`--attach`).
    public var attachSocket: String?
    /// Whether to watch the host's plugin folders and hot-swap rebuilt files.
    public var watchesPlugins: Bool
    /// How long the watcher waits for more file events before reloading.
    public var debounce: Duration
    /// The token every request must carry.
    public var token: AccessToken
    /// Records the action log keeps.
    public var logCapacity: Int
    /// Where "save to the story file" writes (`KEY.stories.json`), and a folder of story files read beside the
    /// `stories/` folder next to each plugin (`--stories`).
    public var storiesFolder: String

    public init(
        port: Int = 0, flowPath: String? = nil, attachSocket: String? = nil, watchesPlugins: Bool = true,
        debounce: Duration = .milliseconds(50), token: AccessToken = AccessToken(), logCapacity: Int = 10_000,
        storiesFolder: String = "stories"
    ) {
        self.storiesFolder = storiesFolder
        self.port = port
        self.flowPath = flowPath
        self.attachSocket = attachSocket
        self.watchesPlugins = watchesPlugins
        self.debounce = debounce
        self.token = token
        self.logCapacity = logCapacity
    }
}
