import ArgumentParser

/// The options of `graft workbench`. Declared here, beside the global ones,
/// because two executables parse them: `graft` (for its help and to refuse a
/// bad value before starting anything) and `graft-workbench`, which runs the
/// server so that `graft` itself never links the web stack.
package struct WorkbenchArguments: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp("A flow document to run screen by screen, with its transcript.", valueName: "flow.json"))
    package var flow: String?

    @Option(help: ArgumentHelp("A running host's debug socket: show its plugins and its live action log.", valueName: "socket"))
    package var attach: String?

    @Option(help: "The loopback port to listen on (0: any free port).")
    package var port: Int = 0

    @Option(help: "Milliseconds to wait for more file events before reloading a rebuilt plugin.")
    package var debounce: Int = 50

    @Flag(help: "Do not watch the plugin folders for rebuilt files.")
    package var noWatch = false

    @Option(help: ArgumentHelp("Story files: read from here (beside the stories/ next to each plugin), and saved here from the page.", valueName: "folder"))
    package var stories = "stories"

    package func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 (any free port) to 65535, not \(port).") }
        guard debounce >= 0 else { throw ValidationError("--debounce must be 0 or more milliseconds.") }
    }

    package static let abstract =
        "Start Graft Workbench: a local web page to see, drive and hot-swap components, validators, actions and flows."

    package static let discussion = """
        Listens on 127.0.0.1 only and prints a URL with a random token; open it in a browser (the token is \
        required, as Jupyter's). Plugin folders are watched: a rebuilt plugin re-renders the open page; a \
        refused build shows as a banner while the old build keeps serving. Plugins run isolated (one child \
        process each) unless --in-process is given, so a crashing component shows an error card. Ctrl-C stops.
        """
}
