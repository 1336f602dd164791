import ArgumentParser
import GraftCommandLine

/// `graft-bench`, which `graft bench` runs: the benchmarks, in an executable
/// of their own so that `graft` starts without their code (and without
/// GraftKit, which the Swift side of the component part links).
/// `graft-bench load-child` is the host side of the load part;
/// `graft-bench isolation-loop` times one isolated call in a loop.
@main
enum BenchMain {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == BenchLoadChild.configuration.commandName {
            BenchLoadChild.main(Array(arguments.dropFirst()))  // returns after a successful run
            return
        }
        if arguments.first == BenchIsolationLoop.configuration.commandName {
            BenchIsolationLoop.main(Array(arguments.dropFirst()))
            return
        }
        CommandMain.run(Bench.self, helpHint: "graft-bench --help")
    }
}
