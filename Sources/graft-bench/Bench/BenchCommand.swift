import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost
import GraftSupport

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graft bench",
        abstract: "Time the paths that matter against a baseline in the same run, and print ratios.",
        discussion: """
            Parts: registry, components, validators, load, hotswap, discovery, isolation, sandbox (default: all), and, run only
            when named: workbench (it drives headless Chromium, from Debian's chromium and chromium-driver) and server (the
            example server over HTTP with 1 to 32 clients, a few minutes) and soak (a host under a mixed load for --minutes,
            30 by default, its memory, descriptors, threads and children sampled). Build with -c release first
            (with the Swift runtime linked into the executables, as they ship):
              swift build -c release --static-swift-stdlib && .build/release/graft bench
            Figures are medians of several rounds; compare ratios, not absolute times, on shared machines.
            """)

    enum Part: String, ExpressibleByArgument, CaseIterable {
        case registry, components, validators, load, hotswap, discovery, isolation, wasm, sandbox, idle, workbench, server, soak, all
    }

    @Argument(help: "The parts to run.")
    var parts: [Part] = [.all]

    @Option(help: "Minutes the soak part runs its host under load.")
    var minutes: Double = 30

    @Option(help: "Rounds of the server part, each running every configuration once.")
    var serverRounds: Int = 3

    @Option(help: "Seconds the clients of the server part send requests in each configuration.")
    var serverSeconds: Double = 2

    @Option(help: "Iterations per round for the per-call figures.")
    var iterations: Int = 200_000

    @Option(help: "How many distinct plugins the load part loads into one host, comma-separated.")
    var loadSizes: String = "10,200,1000"

    @Option(help: "Rounds per size timed by the load part, each on fresh copies of the plugins.")
    var loadRounds: Int = 5

    @Option(help: "Swaps timed by the hotswap part through reload() alone, and again under load.")
    var swaps: Int = 500

    @Option(help: "Swaps timed by the hotswap part through the watcher, each with a live instance moving across.")
    var watchedSwaps: Int = 100

    @Option(help: "Child starts timed each way, sandboxed and not (sandbox part).")
    var sandboxStarts: Int = 90

    @Option(help: "Isolated swaps of the Swift plugin before the host's memory is read (isolation part).")
    var isolatedSwaps: Int = 1000

    @Option(help: "Swaps of a plain-cc plugin before its memory is read.")
    var memorySwaps: Int = 1000

    @Option(help: "Distinct plugins discovered by the discovery part.")
    var discoveryPlugins: Int = 200

    @Option(help: "Rounds timed by the discovery part, each on fresh copies of the plugins.")
    var discoveryRounds: Int = 21

    @Option(help: "Page loads timed by the workbench part.")
    var pageLoads: Int = 20

    @Option(help: "Control changes timed by the workbench part.")
    var controlChanges: Int = 200

    @Option(help: "Hot swaps timed by the workbench part.")
    var workbenchSwaps: Int = 20

    @Flag(help: "Compare every ratio measured with its target (the table `--targets` prints) and exit 1 if one misses.")
    var check = false

    @Flag(help: "Print the table of targets (part, ratio, bound) as Markdown and exit.")
    var targets = false

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "Hold a ratio to another bound in this run, as 'PART: RATIO <= N' or '... >= N' (repeatable): a tighter guard in CI, or a doctored one to see --check fail.",
            valueName: "PART: RATIO <=|>= N"))
    var targetOverrides: [String] = []

    @OptionGroup var options: GlobalOptions

    /// `--load-sizes` as numbers.
    var sizes: [Int] { loadSizes.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) } }

    func validate() throws {
        guard !sizes.isEmpty, sizes.count == loadSizes.split(separator: ",").count, sizes.allSatisfy({ $0 > 0 }), loadRounds > 0 else {
            throw ValidationError("--load-sizes takes positive whole numbers separated by commas (not '\(loadSizes)'), --load-rounds at least 1")
        }
        guard minutes > 0, minutes.isFinite else { throw ValidationError("--minutes takes a positive number of minutes (not \(minutes))") }
        guard serverRounds > 0, serverSeconds > 0, serverSeconds.isFinite else {
            throw ValidationError("--server-rounds takes a whole number at least 1 (not \(serverRounds)), --server-seconds a positive number (not \(serverSeconds))")
        }
        _ = try targetTable()
    }

    /// `BenchTarget.table` with `--target`s applied: each replaces the row of its ratio, or adds one.
    func targetTable() throws -> [BenchTarget] {
        var table = BenchTarget.table
        for text in targetOverrides {
            let operatorStart = text.firstRange(of: "<=") ?? text.firstRange(of: ">=")
            guard let colon = text.firstIndex(of: ":"), let operatorStart, colon < operatorStart.lowerBound,
                let bound = BenchTarget.Bound(parsing: text[operatorStart.lowerBound...])
            else {
                throw ValidationError("--target takes 'PART: RATIO <= N' or 'PART: RATIO >= N' (not '\(text)'), for example 'load: N=200: host / floor <= 1.5'")
            }
            let part = Self.trimmed(text[..<colon])
            let ratio = Self.trimmed(text[text.index(after: colon)..<operatorStart.lowerBound])
            guard Part(rawValue: part) != nil, part != "all" else {
                throw ValidationError("--target '\(text)': no part named '\(part)' (parts: \(Part.allCases.map(\.rawValue).filter { $0 != "all" }.joined(separator: ", ")))")
            }
            table.removeAll { $0.part == part && $0.ratio == ratio }
            table.append(BenchTarget(part, ratio, bound))
        }
        return table
    }

    func run() throws {
        let targetTable = try targetTable()
        if targets {
            Output.line(BenchTarget.markdown(targetTable))
            return
        }
        #if DEBUG
        writeToStandardError("note: this is a debug build; run `swift build -c release --static-swift-stdlib` and `.build/release/graft bench` for real figures\n")
        #endif
        // `all` leaves out the workbench, which needs a browser, and the server and soak parts, which take minutes: name them to run them.
        let selected = Set(parts.contains(.all) ? Part.allCases.filter { ![.all, .workbench, .server, .soak].contains($0) } : parts)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graft-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The plugins on the search path, loaded only for the parts that use them.
        var loaded: GraftHost?
        func host() -> GraftHost {
            if let loaded { return loaded }
            // In process (what these parts time), and without the user's registry cache.
            var inProcess = options
            inProcess.inProcess = true
            inProcess.noCache = true
            let host = inProcess.makeHost()
            loaded = host
            return host
        }

        var results: [BenchPart] = []
        func attempt(_ name: String, _ body: () throws -> BenchPart) {
            do {
                var result = try body()
                result.key = name
                results.append(result)
            } catch {
                var failed = BenchPart(name: name, key: name)
                failed.notes.append("\(error)")
                results.append(failed)
            }
        }
        if selected.contains(.registry) { attempt("registry") { RegistryBench.run(host: host(), iterations: iterations) } }
        if selected.contains(.components) { attempt("components") { try ComponentBench.run(folder: folder, iterations: iterations / 10) } }
        if selected.contains(.validators) { attempt("validators") { try ValidatorBench.run(host: host(), iterations: iterations) } }
        if selected.contains(.load) { attempt("load") { try LoadBench.run(folder: folder, sizes: sizes, rounds: loadRounds) } }
        if selected.contains(.hotswap) {
            let swiftPlugin = SearchPath.executableFolder.map { $0 + "/libDatePicker.so" }
            attempt("hotswap") {
                try HotSwapBench.run(
                    folder: folder, swaps: swaps, watchedSwaps: watchedSwaps, memorySwaps: memorySwaps, swiftPlugin: swiftPlugin)
            }
        }
        if selected.contains(.discovery) { attempt("discovery") { try DiscoveryBench.run(folder: folder, count: discoveryPlugins, rounds: discoveryRounds) } }

        if selected.contains(.isolation) {
            attempt("isolation") { try IsolationBench.run(folder: folder, iterations: iterations, swaps: isolatedSwaps) }
        }

        if selected.contains(.wasm) {
            attempt("wasm") { try WasmBench.run(folder: folder, iterations: iterations, swaps: swaps) }
        }

        if selected.contains(.sandbox) {
            attempt("sandbox") { try SandboxBench.run(folder: folder, iterations: iterations, starts: sandboxStarts) }
        }

        if selected.contains(.idle) {
            attempt("idle") { try IdleBench.run(folder: folder) }
        }

        if selected.contains(.workbench) {
            attempt("workbench") {
                try WorkbenchBench.run(folder: folder, pageRounds: pageLoads, changes: controlChanges, swaps: workbenchSwaps)
            }
        }

        if selected.contains(.server) {
            attempt("server") { try ServerBench.run(folder: folder, rounds: serverRounds, seconds: serverSeconds) }
        }

        if selected.contains(.soak) {
            attempt("soak") { try SoakBench.run(folder: folder, minutes: minutes) }
        }

        let verdicts = BenchTarget.verdicts(results, targets: targetTable)
        if options.json {
            var object: [String: GraftValue] = [:]
            for (part, result) in zip(Part.allCases.filter { selected.contains($0) }, results) { object[part.rawValue] = result.json }
            #if DEBUG
            object["build"] = "debug"
            #else
            object["build"] = "release"
            #endif
            if check { object["check"] = Self.checkJSON(verdicts) }
            Output.json(.object(object))
        } else {
            Output.line(results.map { $0.text(targets: targetTable) }.joined(separator: "\n\n"))
        }
        guard check else { return }
        let missed = verdicts.filter { !$0.met }
        writeToStandardError(
            "check: \(verdicts.count - missed.count) of \(verdicts.count) ratios with a target meet it\(missed.isEmpty ? "" : "; missed:")\n")
        for verdict in missed {
            writeToStandardError("  \(verdict.part): \(verdict.ratio) = \(BenchPart.format(verdict.value))×, target \(verdict.bound)\n")
        }
        if !missed.isEmpty { throw ExitCode(1) }
    }

    static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    static func checkJSON(_ verdicts: [BenchTarget.Verdict]) -> GraftValue {
        .list(verdicts.map { verdict in
            ["part": .string(verdict.part), "ratio": .string(verdict.ratio), "value": .number(BenchPart.rounded(verdict.value)),
             "target": .string(verdict.bound.description), "met": .bool(verdict.met)]
        })
    }
}
