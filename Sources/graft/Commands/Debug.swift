import ArgumentParser

struct Debug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "The debugger: list plugins the way the debugger shows them, or attach to a running host's debug endpoint.",
        discussion: """
            Without a running host, the plugin report for the local search path:
              graft debug plugins [--json]
            Attached to a host that opened a debug endpoint (DebugEndpoint.open, or
            graft-example-host --debug-socket PATH):
              graft debug attach SOCKET plugins [--json]
              graft debug attach SOCKET log [--last N] [--follow] [--json]
                                            [--plugin ID] [--component KEY[@V]]
                                            [--instance ID] [--event NAME]
              graft debug attach SOCKET try KEY[@V] [--config JSON] [--instance ID]
                                            [--interact ACTION[:JSON]]…
                                            [--emit EVENT[:JSON]]…
            """,
        subcommands: [DebugPlugins.self, DebugAttach.self])
}
