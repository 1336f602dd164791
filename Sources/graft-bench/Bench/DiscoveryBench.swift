import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftHost
import GraftMinisign
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench discovery`: finding out what N distinct plugins declare,
/// through crash-proof discovery (open, trust check, the registry cache or
/// the scanner child, registration without mapping), against the floor: a C
/// program that loads each file and walks its descriptors (`DiscoveryFloor`).
/// Every round uses fresh copies of the N files (new inodes, never loaded)
/// and an empty cache folder, and times, back to back:
///   floor       the C loop, in its own process, timed inside it;
///   cold scan   `GraftHost(configuration:)` + `loadPlugins()`, empty cache: every file through the scanner child;
///   warm list   a fresh host + `loadPlugins()` + reading `host.plugins`, the cache the cold scan wrote;
///   host start  a fresh host + `loadPlugins()`, same cache, nothing used or listed (these two take turns);
///   processes   `graft list --json` (release, warm cache) and `gst-inspect-1.0` (its warm registry), start to reaped.
/// Ratios are medians of each round's own ratio; p99 is over rounds.
enum DiscoveryBench {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `graft list` / `gst-inspect-1.0` pairs per round: processes are cheap
    /// enough to sample more often.
    static let processPairsPerRound = 3

    /// `rounds` timed rounds follow one untimed warm-up round.
    static func run(folder: URL, count: Int, rounds: Int) throws -> BenchPart {
        var part = BenchPart(name: "discovery of \(count) plugins")
        guard count > 0, rounds > 0 else { throw Failure(description: "--discovery-plugins and --discovery-rounds must be at least 1") }
        let root = folder.appendingPathComponent("discovery")
        try makeFolder(root)
        defer { try? FileManager.default.removeItem(at: root) }
        // A graft-child that made an image folder (graft-images-PID-…, for
        // copies) and dies with its host leaves it in $TMPDIR: point TMPDIR
        // into our folder while this part runs, so nothing is left behind.
        let scratch = root.appendingPathComponent("tmp")
        try makeFolder(scratch)
        let previousTemporary = getenv("TMPDIR").map { String(cString: $0) }
        setenv("TMPDIR", scratch.path + "/", 1)
        defer {
            if let previousTemporary { setenv("TMPDIR", previousTemporary, 1) } else { unsetenv("TMPDIR") }
        }
        let builds = try buildPlugins(count, into: root.appendingPathComponent("builds"))
        // Signatures: every copy in a folder of its own signed by one publisher, whose key the host requires.
        let signingKey = Minisign.SecretKey.generated()
        let publicKeyFile = root.appendingPathComponent("bench.pub")
        try Data(signingKey.publicKey.text.utf8).write(to: publicKeyFile)
        let signatures = SignaturePolicy(
            publishers: [try Publisher(name: "bench", prefixes: ["bench."], keys: [signingKey.publicKey.text])], requiresSignatures: true)
        let floorProgram = try DiscoveryFloor.build(into: root)

        // The `graft` beside this one (the release build, when this is it),
        // and gst-inspect-1.0 with its registry warmed in a cache folder of ours.
        let graft = SearchPath.executableFolder.map { $0 + "/graft" }.flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
        if graft == nil { part.notes.append("no graft executable beside this one: the whole-process figures are skipped") }
        // Start-up is part of the whole-process figures: say how the runtime was linked.
        let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
        part.notes.append(
            maps.contains("libswiftCore.so")
                ? "this graft links the Swift runtime dynamically; `swift build -c release --static-swift-stdlib` starts graft and graft-child about 4 ms sooner"
                : "graft and graft-child link the Swift runtime statically (--static-swift-stdlib)")
        let gstCache = root.appendingPathComponent("gst-cache")
        try makeFolder(gstCache)
        var gstInspect = executableOnPath("gst-inspect-1.0")
        var gstPlugins: Int?
        // Both list the same number of plugins: gst-inspect the first of its
        // system plugins (it adds its one built-in), graft as many of ours.
        var gstEnvironment = environment(cacheHome: gstCache)
        var listedCount = count
        if let path = gstInspect {
            if let system = gstPluginFiles(), !system.isEmpty {
                let chosen = root.appendingPathComponent("gst-plugins")
                try makeFolder(chosen)
                for file in system.prefix(count - 1) {
                    try FileManager.default.createSymbolicLink(atPath: chosen.appendingPathComponent(file.lastPathComponent).path, withDestinationPath: file.path)
                }
                gstEnvironment["GST_PLUGIN_SYSTEM_PATH_1_0"] = chosen.path
                gstEnvironment["GST_PLUGIN_PATH_1_0"] = nil
                listedCount = min(count, system.count + 1)
            } else {
                part.notes.append("gst-inspect-1.0's plugin folder not found: it lists all its plugins, graft its \(count)")
            }
            let warmed = try spawn(path, [], environment: gstEnvironment, capturingOutput: true)
            gstPlugins = totalCount(inGstInspectOutput: warmed.output)
            if warmed.status != 0 || gstPlugins == nil {
                part.notes.append("gst-inspect-1.0 failed (status \(warmed.status)): the gst-inspect comparison is skipped")
                gstInspect = nil
            } else if gstPlugins != listedCount {
                part.notes.append("gst-inspect-1.0 lists \(gstPlugins!) plugins, graft list \(listedCount): not the same count")
            }
        } else {
            part.notes.append(
                "gst-inspect-1.0 not found: `apt-get install -y gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good` (about 100 plugins) is needed for the graft list / gst-inspect comparison; skipped")
        }

        var floor: [Double] = [], cold: [Double] = [], coldUnsandboxed: [Double] = [], warm: [Double] = [], start: [Double] = []
        var coldSigned: [Double] = [], signedProcess: [Double] = [], unsignedProcess: [Double] = [], signedRatios: [Double] = []
        var graftProcess: [Double] = [], gstProcess: [Double] = [], processRatios: [Double] = []
        var graftPlugins: Int?
        for round in 0...rounds {
            // Round 0 warms up (the page cache, each executable's first run)
            // and is not recorded.
            let recorded = round > 0
            let base = root.appendingPathComponent("round-\(round)")
            defer { try? FileManager.default.removeItem(at: base) }
            let plugins = base.appendingPathComponent("plugins")
            let floorFiles = try copies(of: builds, into: base.appendingPathComponent("floor"))
            _ = try copies(of: builds, into: plugins)
            let cacheHome = base.appendingPathComponent("cache")
            try makeFolder(cacheHome)
            let configuration = GraftConfiguration(
                searchPath: SearchPath(folders: [plugins.path]), cacheFolder: cacheHome.path + "/graft", mapping: .onFirstUse)
            // The same cold scan with the sandbox off, on its own copies and cache: what the sandbox costs.
            let unsandboxedPlugins = base.appendingPathComponent("plugins-unsandboxed")
            _ = try copies(of: builds, into: unsandboxedPlugins)
            let unsandboxed = GraftConfiguration(
                searchPath: SearchPath(folders: [unsandboxedPlugins.path]), cacheFolder: cacheHome.path + "/graft-unsandboxed",
                mapping: .onFirstUse, sandbox: SandboxSettings(mode: .off))

            // The same cold scan of signed copies, signatures required, into the same cache.
            let signedPlugins = base.appendingPathComponent("plugins-signed")
            for (index, copy) in try copies(of: builds, into: signedPlugins).enumerated() {
                let (text, _) = try PluginSigning.signature(ofPluginAt: copy, id: "bench.p\(index)", version: "1.0.0", key: signingKey)
                try Data(text.utf8).write(to: URL(fileURLWithPath: copy + ".minisig"))
            }
            // Its own cache: the others' figures read a cache of their own plugins only, as before.
            let signedCacheHome = base.appendingPathComponent("cache-signed")
            try makeFolder(signedCacheHome)
            let signed = GraftConfiguration(
                searchPath: SearchPath(folders: [signedPlugins.path]), cacheFolder: signedCacheHome.path + "/graft", mapping: .onFirstUse,
                signatures: signatures)

            let floorNs = try DiscoveryFloor.run(floorProgram, files: floorFiles)
            let coldNs: Double, coldUnsandboxedNs: Double, coldSignedNs: Double
            if round.isMultiple(of: 2) {
                coldNs = try timeHost(configuration, expecting: count, listing: false)
                coldUnsandboxedNs = try timeHost(unsandboxed, expecting: count, listing: false)
                coldSignedNs = try timeHost(signed, expecting: count, listing: false)
            } else {
                coldSignedNs = try timeHost(signed, expecting: count, listing: false)
                coldUnsandboxedNs = try timeHost(unsandboxed, expecting: count, listing: false)
                coldNs = try timeHost(configuration, expecting: count, listing: false)
            }
            // The two warm figures take turns going first after the cold scan.
            let warmNs: Double, startNs: Double
            if round.isMultiple(of: 2) {
                warmNs = try timeHost(configuration, expecting: count, listing: true)
                startNs = try timeHost(configuration, expecting: count, listing: false)
            } else {
                startNs = try timeHost(configuration, expecting: count, listing: false)
                warmNs = try timeHost(configuration, expecting: count, listing: true)
            }
            if recorded {
                floor.append(floorNs)
                cold.append(coldNs)
                coldSigned.append(coldSignedNs)
                coldUnsandboxed.append(coldUnsandboxedNs)
                warm.append(warmNs)
                start.append(startNs)
            }

            guard let graft else { continue }
            // The signed copies listed with signatures required, and without, taking turns.
            let signedArguments = ["list", "--json", "--only-plugin-path", "--plugin-path", signedPlugins.path]
            let requiring = signedArguments + ["--publisher", "bench.=\(publicKeyFile.path)", "--require-signatures"]
            if !recorded {
                let listed = try spawn(graft, requiring, environment: environment(cacheHome: signedCacheHome), capturingOutput: true)
                let json = try? GraftValue(json: String(decoding: listed.output, as: UTF8.self))
                guard listed.status == 0, case .list(let plugins)? = json?.objectValue?["plugins"], plugins.count == count,
                    case .list(let failures)? = json?.objectValue?["failures"], failures.isEmpty
                else { throw Failure(description: "graft list with signatures required did not list all \(count) signed plugins (status \(listed.status))") }
            }
            for pair in 0..<processPairsPerRound {
                let signedFirst = (round + pair).isMultiple(of: 2)
                let early = signedFirst ? try spawn(graft, requiring, environment: environment(cacheHome: signedCacheHome)) : nil
                let unsigned = try spawn(graft, signedArguments, environment: environment(cacheHome: signedCacheHome))
                let signedList = try early ?? spawn(graft, requiring, environment: environment(cacheHome: signedCacheHome))
                guard signedList.status == 0, unsigned.status == 0 else {
                    throw Failure(description: "graft list exited with status \(signedList.status) (signed) and \(unsigned.status)")
                }
                if recorded {
                    signedProcess.append(signedList.nanoseconds)
                    unsignedProcess.append(unsigned.nanoseconds)
                    signedRatios.append(signedList.nanoseconds / unsigned.nanoseconds)
                }
            }
            // Fewer than all when gst-inspect has fewer: the first of this round's
            // copies, listed once untimed to warm the cache for them.
            let listedFolder = listedCount == count ? plugins : base.appendingPathComponent("plugins-listed")
            if listedCount != count { _ = try copies(of: Array(builds.prefix(listedCount)), into: listedFolder) }
            let arguments = ["list", "--json", "--only-plugin-path", "--plugin-path", listedFolder.path]
            if !recorded || listedCount != count {
                let listed = try spawn(graft, arguments, environment: environment(cacheHome: cacheHome), capturingOutput: true)
                let json = try? GraftValue(json: String(decoding: listed.output, as: UTF8.self))
                if case .list(let plugins)? = json?.objectValue?["plugins"] { graftPlugins = plugins.count }
                guard listed.status == 0, graftPlugins == listedCount else {
                    throw Failure(description: "graft list exited \(listed.status) listing \(graftPlugins ?? 0) of \(listedCount) plugins")
                }
            }
            for pair in 0..<processPairsPerRound {
                guard let gstInspect else {
                    let listed = try spawn(graft, arguments, environment: environment(cacheHome: cacheHome))
                    guard listed.status == 0 else { throw Failure(description: "graft list exited with status \(listed.status)") }
                    if recorded { graftProcess.append(listed.nanoseconds) }
                    continue
                }
                // The two take turns going first: the first process after the
                // in-process part runs slower.
                let inspectedFirst = (round + pair).isMultiple(of: 2)
                let early = inspectedFirst ? try spawn(gstInspect, [], environment: gstEnvironment) : nil
                let listed = try spawn(graft, arguments, environment: environment(cacheHome: cacheHome))
                guard listed.status == 0 else { throw Failure(description: "graft list exited with status \(listed.status)") }
                let inspected = try early ?? spawn(gstInspect, [], environment: gstEnvironment)
                guard inspected.status == 0 else { throw Failure(description: "gst-inspect-1.0 exited with status \(inspected.status)") }
                if recorded {
                    graftProcess.append(listed.nanoseconds)
                    gstProcess.append(inspected.nanoseconds)
                    processRatios.append(listed.nanoseconds / inspected.nanoseconds)
                }
            }
        }

        spread(&part, "floor", floor, plugins: count)
        spread(&part, "cold_scan", cold, plugins: count)
        spread(&part, "cold_scan_unsandboxed", coldUnsandboxed, plugins: count)
        spread(&part, "warm_list", warm, plugins: count)
        spread(&part, "host_start", start, plugins: count)
        part.ratio("warm list / floor", roundRatio(warm, floor))
        part.ratio("cold scan / floor", roundRatio(cold, floor))
        part.ratio("cold scan, sandbox off / floor", roundRatio(coldUnsandboxed, floor))
        part.ratio("cold scan: sandboxed / sandbox off", roundRatio(cold, coldUnsandboxed))
        part.ratio("host start / floor", roundRatio(start, floor))
        spread(&part, "cold_scan_signed", coldSigned, plugins: count)
        part.ratio("cold scan: signed / unsigned", roundRatio(coldSigned, cold))
        if !signedRatios.isEmpty {
            part.figure("graft_list_signed_process_p50_ms", Stopwatch.median(signedProcess) / 1e6, "ms per process, \(count) signed plugins, signatures required")
            part.figure("graft_list_unsigned_process_p50_ms", Stopwatch.median(unsignedProcess) / 1e6, "ms per process, the same plugins, no signature read")
            part.ratio("signed graft list / unsigned (process)", Stopwatch.median(signedRatios))
        }
        part.ratio("warm list / floor, p99", Stopwatch.p99(warm) / Stopwatch.p99(floor))
        part.ratio("cold scan / floor, p99", Stopwatch.p99(cold) / Stopwatch.p99(floor))
        part.ratio("host start / floor, p99", Stopwatch.p99(start) / Stopwatch.p99(floor))
        if !graftProcess.isEmpty {
            part.figure("graft_list_process_p50_ms", Stopwatch.median(graftProcess) / 1e6, "ms per process, \(count) plugins")
            part.figure("graft_list_process_p99_ms", Stopwatch.p99(graftProcess) / 1e6, "ms per process, \(count) plugins")
            part.figure("graft_list_plugins", Double(graftPlugins ?? 0), "plugins listed")
        }
        if !gstProcess.isEmpty {
            part.figure("gst_inspect_process_p50_ms", Stopwatch.median(gstProcess) / 1e6, "ms per process")
            part.figure("gst_inspect_process_p99_ms", Stopwatch.p99(gstProcess) / 1e6, "ms per process")
            part.figure("gst_inspect_plugins", Double(gstPlugins ?? 0), "plugins listed")
            part.ratio("graft list / gst-inspect (process)", Stopwatch.median(processRatios))
            part.ratio("graft list / gst-inspect, p99", Stopwatch.p99(graftProcess) / Stopwatch.p99(gstProcess))
        }
        part.notes.append(
            "floor: a C program (cc -O2) doing dlopen(RTLD_NOW|RTLD_LOCAL), dlsym(graft_entry), entry, ABI major, init, get_factory x3 and every descriptor for each file; its loop timed inside it")
        part.notes.append("cold scan: GraftHost(configuration:) + loadPlugins(), new inodes, empty cache: every file through graft-child (sandboxed, the default), cache written; the same with the sandbox off, on its own copies, taking turns going first")
        part.notes.append("warm list: GraftHost(configuration:) + loadPlugins() + host.plugins, the cache the cold scan wrote; host start: the same without host.plugins")
        part.notes.append(
            "signed: the same plugins, each with a minisign signature (prehashed) by one publisher whose key the host requires for bench.*; the cold scan on their own copies, taking turns with the others; `graft list --json` of them with --publisher and --require-signatures against without, warm cache, taking turns going first")
        if !graftProcess.isEmpty {
            part.notes.append(
                "processes: spawn to reaped, output to /dev/null; `graft list --json --only-plugin-path` of \(listedCount) plugins (warm cache, XDG_CACHE_HOME) against `gst-inspect-1.0` of as many (warm registry, its own XDG_CACHE_HOME, GST_PLUGIN_SYSTEM_PATH_1_0 a folder of links to the first of its system plugins), taking turns going first")
        }
        part.notes.append(
            "\(rounds) rounds (\(rounds * processPairsPerRound) process pairs), each on fresh copies of \(count) distinct plugins; p99 is over rounds (of 50 or fewer samples, the largest)")
        return part
    }

    /// Times a fresh host loading the search path of `configuration`, and
    /// reading `host.plugins` when `listing`; checks, untimed, that every
    /// plugin registered unmapped.
    static func timeHost(_ configuration: GraftConfiguration, expecting count: Int, listing: Bool) throws -> Double {
        let started = DispatchTime.now().uptimeNanoseconds
        let host = GraftHost(configuration: configuration, logger: quietLogger)
        host.loadPlugins()
        if listing { blackHole(host.plugins.reduce(0) { $0 + $1.components.count }) }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started)
        let plugins = host.plugins
        guard plugins.count == count, host.failures.isEmpty, !plugins.contains(where: \.isMapped) else {
            let failure = host.failures.first.map { ": \($0.error)" } ?? ""
            throw Failure(
                description: "discovery registered \(plugins.count) of \(count) plugins, \(plugins.filter(\.isMapped).count) mapped\(failure)")
        }
        return elapsed
    }

    /// Total and per-plugin figures, median and p99, of `samples` (ns for N plugins).
    static func spread(_ part: inout BenchPart, _ key: String, _ samples: [Double], plugins count: Int) {
        let median = Stopwatch.median(samples), p99 = Stopwatch.p99(samples)
        part.figure("\(key)_p50_ms", median / 1e6, "ms for \(count) plugins")
        part.figure("\(key)_p99_ms", p99 / 1e6, "ms for \(count) plugins")
        part.figure("\(key)_per_plugin_p50_us", median / Double(count) / 1e3, "µs per plugin (total / \(count))")
        part.figure("\(key)_per_plugin_p99_us", p99 / Double(count) / 1e3, "µs per plugin (total / \(count))")
    }

    /// The median over rounds of `measured / baseline` in the same round.
    static func roundRatio(_ measured: [Double], _ baseline: [Double]) -> Double {
        Stopwatch.median(zip(measured, baseline).map { $0 / $1 })
    }

    // MARK: Files

    /// Compiles `count` distinct plugins (ids `bench.p0`…, component keys
    /// `echo.p0`…) from `BenchPlugin`'s source, a few `cc` at a time.
    static func buildPlugins(_ count: Int, into folder: URL, defines: [String] = []) throws -> [URL] {
        try makeFolder(folder)
        @Sendable func build(_ index: Int) throws -> URL {
            try BenchPlugin.build(
                into: folder, name: "libbench_p\(index).so",
                defines: ["BENCH_ID=\"bench.p\(index)\"", "BENCH_KEY=\"echo.p\(index)\""] + defines)
        }
        // The first build writes the shared source; the rest only read it.
        let first = try build(0)
        let built = Mutex<[Int: Result<URL, any Error>]>([0: .success(first)])
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: 1 + worker, to: count, by: workers) {
                let result = Result { try build(index) }
                built.withLock { $0[index] = result }
            }
        }
        return try built.withLock { built in try (0..<count).map { try built[$0]!.get() } }
    }

    /// Copies `files` into a new `folder` (new inodes, mode 0755); returns the copies' paths.
    static func copies(of files: [URL], into folder: URL) throws -> [String] {
        try makeFolder(folder)
        return try files.map { file in
            let copy = folder.appendingPathComponent(file.lastPathComponent).path
            try FileManager.default.copyItem(atPath: file.path, toPath: copy)
            chmod(copy, 0o755)
            return copy
        }
    }

    /// A folder only this user can write: the trust checks accept its files.
    static func makeFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    // MARK: Processes

    /// This process's environment with `XDG_CACHE_HOME` set: graft's registry
    /// cache and GStreamer's registry go there, never into ~/.cache.
    static func environment(cacheHome: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cacheHome.path
        // Nobody's own `graft config` file: the cache folder's, which has none.
        environment["XDG_CONFIG_HOME"] = cacheHome.path
        environment["GRAFT_CONFIG"] = nil
        return environment
    }

    /// GStreamer's system plugins (`…/gstreamer-1.0/libgst*.so`), sorted; nil
    /// when no folder of them is found.
    static func gstPluginFiles() -> [URL]? {
        #if arch(arm64)
        let multiarch = "aarch64-linux-gnu"
        #else
        let multiarch = "x86_64-linux-gnu"
        #endif
        let candidates = ["/usr/lib/\(multiarch)/gstreamer-1.0", "/usr/lib64/gstreamer-1.0", "/usr/lib/gstreamer-1.0"]
        for folder in candidates {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            let plugins = names.filter { $0.hasPrefix("libgst") && $0.hasSuffix(".so") }.sorted()
            if !plugins.isEmpty { return plugins.map { URL(fileURLWithPath: folder + "/" + $0) } }
        }
        return nil
    }

    static func executableOnPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { $0.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The N of gst-inspect-1.0's closing "Total count: N plugins, M features" line.
    static func totalCount(inGstInspectOutput output: Data) -> Int? {
        let text = String(decoding: output, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("Total count:") }) else { return nil }
        return line.dropFirst("Total count:".count).split(separator: " ").first.flatMap { Int($0) }
    }

    /// Runs `path` through posix_spawn, stdin from /dev/null, stdout and
    /// stderr to /dev/null (or captured), waits for it and reaps it. The time
    /// is from just before the spawn to just after the reap. A child still
    /// running after `timeout` is killed, reaped, and reported.
    static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        capturingOutput: Bool = false, timeout: Duration = .seconds(300)
    ) throws -> (status: Int32, nanoseconds: Double, output: Data) {
        var pipeEnds: [Int32] = [-1, -1]
        if capturingOutput {
            // Close-on-exec: the child gets the write end as its stdout and stderr only.
            guard graft_pipe_cloexec(&pipeEnds) == 0 else { throw Failure(description: "pipe failed: \(String(cString: strerror(errno)))") }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let deadline = ContinuousClock.now + timeout
        let pid: pid_t
        do {
            pid = try BenchProcess.start(path, arguments, environment: environment, output: pipeEnds[1])
        } catch {
            for end in pipeEnds where end >= 0 { close(end) }
            throw Failure(description: error.description)
        }
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        func overdue() -> Failure {
            BenchProcess.stop(pid, within: .seconds(1))
            return Failure(description: "\(path) did not finish within \(timeout); it was killed")
        }
        var output = Data()
        if pipeEnds[0] >= 0 {
            defer { close(pipeEnds[0]) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw overdue() }
                var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, Int32(min(left.components.seconds * 1000 + 1, 1000)))
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output.append(contentsOf: buffer[0..<count])
            }
        }
        guard let code = BenchProcess.wait(pid, until: deadline) else { throw overdue() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started)
        return (code, elapsed, output)
    }
}
