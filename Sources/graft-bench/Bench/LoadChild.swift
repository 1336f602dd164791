import ArgumentParser
import Dispatch
import GraftHost

/// The host side of `graft bench load`, in a process of its own
/// (`graft-bench load-child`): loads every
/// file into one host with `host.load(pluginAt:)`, timing the loop only, and
/// prints "NANOSECONDS LOADED". `--warm-up FILE` is loaded first, untimed, into
/// the same host, so one-time costs (the host's first load, the first dlopen,
/// Swift metadata) are not counted. Not for people: hidden from help.
struct BenchLoadChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load-child", abstract: "The host side of graft bench load.", shouldDisplay: false)

    @Option var warmUp: String?
    @Argument var files: [String] = []

    func run() throws {
        let host = GraftHost(configuration: BenchHosts.inProcess(), logger: quietLogger)
        if let warmUp { _ = try? host.load(pluginAt: warmUp) }
        var loaded = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for file in files where (try? host.load(pluginAt: file)) != nil { loaded += 1 }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        print("\(elapsed) \(loaded)")
        withExtendedLifetime(host) {}
    }
}
