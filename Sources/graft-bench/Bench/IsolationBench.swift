import CGraftSystem
import Dispatch
import FoundationEssentials
import GraftHost

#if canImport(Glibc)
import Glibc
#endif

/// `graft bench isolation`: what running plugins in child processes costs.
///
/// The floor for any process boundary is a bare ping-pong on a socket pair
/// carrying the same bytes as the call: a C child compiled here reads a
/// request frame and writes a reply of the size the runner's answer has. Each
/// isolated call is timed against it in interleaved rounds, with the child on
/// the host's CPU and on the other one. Then: the time from a crash to the
/// next answer (a new child, the plugin mapped again, the instance re-created),
/// and the host's memory over many isolated swaps of a Swift plugin.
enum IsolationBench {
    static let pingPongSource = #"""
        #include <stdint.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        static int full(int fd, char *b, size_t n, int writing) {
            while (n) { ssize_t k = writing ? write(fd, b, n) : read(fd, b, n); if (k <= 0) return 0; b += k; n -= (size_t)k; }
            return 1;
        }
        int main(int argc, char **argv) {
            size_t reply = argc > 1 ? strtoul(argv[1], 0, 10) : 16;
            char *in = malloc(1 << 16), *out = calloc(1, reply < 16 ? 16 : reply);
            for (;;) {
                /* One read takes the whole request (as the runner's one recvmsg does);
                 * more only if it came in pieces. */
                uint32_t length;
                ssize_t got = read(3, in, 1 << 16);
                if (got <= 0) return 0;
                while (got < 16) { ssize_t k = read(3, in + got, (size_t)(16 - got)); if (k <= 0) return 0; got += k; }
                memcpy(&length, in + 12, 4);
                if (length > (1 << 16) - 16) return 0;
                if ((size_t)got < 16 + length && !full(3, in + got, 16 + length - (size_t)got, 0)) return 0;
                memcpy(out, in, 12);
                if (!full(3, out, reply, 1)) return 0;
            }
        }
        """#

    /// A running ping-pong child and the host's end of its socket.
    final class PingPong {
        let pid: pid_t
        let socket: Int32
        let request: [UInt8]
        var reply: [UInt8]

        init(executable: String, requestSize: Int, replySize: Int) throws {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw BenchPlugin.CompileError(description: "socketpair failed")
            }
            var argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), strdup(String(replySize)), nil]
            var envp: [UnsafeMutablePointer<CChar>?] = [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let status = graft_spawn(executable, &argv, &envp, pair[1], -1, -1, &pid)
            close(pair[1])
            guard status == 0 else { throw BenchPlugin.CompileError(description: "could not start the ping-pong child") }
            self.pid = pid
            socket = pair[0]
            var request = [UInt8](repeating: 0, count: requestSize)
            let length = UInt32(requestSize - 16).littleEndian
            withUnsafeBytes(of: length) { request.replaceSubrange(12..<16, with: $0) }
            self.request = request
            reply = [UInt8](repeating: 0, count: replySize)
        }

        func roundTrip() {
            _ = request.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            var got = 0
            let count = reply.count
            while got < count {
                let read = reply.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress! + got, count - got) }
                if read <= 0 { return }
                got += read
            }
        }

        deinit {
            close(socket)
            var status: Int32 = 0
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }

    static func run(folder: URL, iterations: Int, swaps: Int) throws -> BenchPart {
        var part = BenchPart(name: "isolation")
        let plugins = folder.appendingPathComponent("isolation")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        _ = try BenchPlugin.build(into: plugins, name: "libbench_echo.so", defines: ["BENCH_CRASH"])
        let checkout = SearchPath.executableFolder.map { $0 + "/libCheckout.so" }
        if let checkout, FileManager.default.fileExists(atPath: checkout) {
            try FileManager.default.copyItem(atPath: checkout, toPath: plugins.appendingPathComponent("libCheckout.so").path)
        }
        let pingPong = try compilePingPong(into: folder)
        let cache = folder.appendingPathComponent("isolation-cache").path
        func host(_ isolation: Isolation, ring: Bool = true) -> GraftHost {
            GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: [plugins.path]), cacheFolder: cache, isolation: isolation),
                logger: quietLogger, runnersUseRing: ring)
        }

        let isolated = host(.perPlugin)
        isolated.loadPlugins()
        let echo = try isolated.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        _ = try echo.render()
        let hasLuhn = (try? isolated.validate("luhn", value: "4111111111111111").isValid) == true
        let echoChild = try isolatedChildPID(of: echo)
        // The same calls with every frame on the socket: the ring's baseline, measured beside it.
        let socketHost = host(.perPlugin, ring: false)
        socketHost.loadPlugins()
        let socketEcho = try socketHost.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        _ = try socketEcho.render()
        let socketChild = try isolatedChildPID(of: socketEcho)
        // And with a thread per child reading for every caller, who only waits (the ring): the other way to read.
        let readerHost = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [plugins.path]), cacheFolder: cache, isolation: .perPlugin),
            logger: quietLogger, runnersUseRing: true, readerThread: true)
        readerHost.loadPlugins()
        let readerEcho = try readerHost.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"])
        _ = try readerEcho.render()
        let readerChild = try isolatedChildPID(of: readerEcho)

        // Frame sizes of the calls timed (header + payload), so the floor carries the same bytes.
        let renderRequest = 16 + 4 + 4 + "text/plain".utf8.count, renderReply = 16 + (4 + 10) + (4 + 7) + 4
        let validateRequest = 16 + 4 + 4 + 6 + 1 + 4 + 16 + 4, validateReply = 16 + 1 + 1

        var saved = graft_cpu_mask_t()
        let cpu = graft_pin_to_current_cpu(&saved)
        defer { if cpu >= 0 { graft_restore_cpu_mask(&saved) } }
        let cpus = Int32(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var placements = [("same CPU", cpu)]
        if cpu >= 0, cpus > 1 { placements.append(("across CPUs", (cpu + 1) % cpus)) }
        if cpu < 0 { part.notes.append("could not pin to a CPU: placements are the scheduler's") }

        for (placement, childCPU) in placements {
            let label = placement == "same CPU" ? "same_cpu" : "cross_cpu"
            let renderFloor = try PingPong(executable: pingPong, requestSize: renderRequest, replySize: renderReply)
            let validateFloor = try PingPong(executable: pingPong, requestSize: validateRequest, replySize: validateReply)
            if childCPU >= 0 {
                for pid in [renderFloor.pid, validateFloor.pid, echoChild, socketChild, readerChild] + ((try? luhnChildPID(isolated)).map { [$0] } ?? []) {
                    _ = graft_pin_to_cpu(pid, Int32(childCPU))
                }
            }
            func cycle(_ host: GraftHost) {
                if let instance = try? host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "hi"]) {
                    _ = try? instance.render()
                    instance.interact("say")
                    instance.close()
                }
            }
            var bodies: [(Int) -> Void] = [
                { _ in renderFloor.roundTrip() },
                { _ in _ = try? echo.render() },
                { _ in cycle(isolated) },
                { _ in _ = try? socketEcho.render() },
                { _ in cycle(socketHost) },
            ]
            if hasLuhn {
                bodies += [{ _ in validateFloor.roundTrip() }, { _ in _ = try? isolated.validate("luhn", value: "4111111111111111") }]
            }
            let readerAt = bodies.count
            bodies += [{ _ in _ = try? readerEcho.render() }, { _ in cycle(readerHost) }]
            let perRound = max(iterations / 100, 200)
            let (samples, p99s) = interleavedSamples(rounds: 9, perRound: perRound, bodies)
            let floor = samples[0], render = samples[1], cycle = samples[2]
            part.figure("\(label)_pingpong_p50_us", floor.p50 / 1000, "µs (p99 \(format(p99s[0] / 1000)))")
            part.figure("\(label)_render_p50_us", render.p50 / 1000, "µs (p99 \(format(p99s[1] / 1000)))")
            part.figure("\(label)_cycle_p50_us", cycle.p50 / 1000, "µs (create+render+emit+destroy; p99 \(format(p99s[2] / 1000)))")
            let socketRender = samples[3], socketCycle = samples[4]
            part.figure("\(label)_socket_render_p50_us", socketRender.p50 / 1000, "µs (every frame on the socket; p99 \(format(p99s[3] / 1000)))")
            part.figure("\(label)_socket_cycle_p50_us", socketCycle.p50 / 1000, "µs (every frame on the socket; p99 \(format(p99s[4] / 1000)))")
            part.ratio("\(placement): render / ping-pong (p50)", render.p50 / floor.p50)
            part.ratio("\(placement): cycle / ping-pong (p50)", cycle.p50 / floor.p50)
            part.ratio("\(placement): render, socket only / ping-pong (p50)", socketRender.p50 / floor.p50)
            part.ratio("\(placement): cycle, socket only / ping-pong (p50)", socketCycle.p50 / floor.p50)
            let readerRender = samples[readerAt], readerCycle = samples[readerAt + 1]
            part.figure("\(label)_reader_thread_render_p50_us", readerRender.p50 / 1000, "µs (a thread per child reads; p99 \(format(p99s[readerAt] / 1000)))")
            part.ratio("\(placement): render, reader thread / callers reading (p50)", readerRender.p50 / render.p50)
            part.ratio("\(placement): cycle, reader thread / callers reading (p50)", readerCycle.p50 / cycle.p50)
            if hasLuhn {
                let validateFloorSample = samples[5], validate = samples[6]
                part.figure("\(label)_validate_p50_us", validate.p50 / 1000, "µs (luhn; p99 \(format(p99s[6] / 1000)))")
                part.ratio("\(placement): validator / ping-pong (p50)", validate.p50 / validateFloorSample.p50)
            }
        }
        if !hasLuhn { part.notes.append("libCheckout.so not found beside graft: the validator figure is skipped") }
        if cpu >= 0 { graft_restore_cpu_mask(&saved) }

        // Crash → next answer: a new child, the plugin mapped, the instance re-created.
        var recoveries: [Double] = []
        for _ in 0..<10 {
            let fresh = host(.perPlugin)
            fresh.loadPlugins()
            guard let instance = try? fresh.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"]) else { continue }
            _ = try? instance.render()
            instance.interact("crash")
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try? instance.render()
            recoveries.append(Double(DispatchTime.now().uptimeNanoseconds - start))
        }
        part.figure("crash_to_next_answer_p50_ms", Stopwatch.median(recoveries) / 1e6, "ms (max \(format((recoveries.max() ?? 0) / 1e6)) ms)")
        part.ratio("crash to next answer (p50) / 50 ms", Stopwatch.median(recoveries) / 50e6)

        // Host memory over isolated swaps of the Swift plugin, with a live instance.
        if let swift = SearchPath.executableFolder.map({ $0 + "/libDatePicker.so" }), FileManager.default.fileExists(atPath: swift) {
            let swapFolder = folder.appendingPathComponent("isolated-swaps")
            try FileManager.default.createDirectory(at: swapFolder, withIntermediateDirectories: true)
            let path = swapFolder.appendingPathComponent("libDatePicker.so").path
            try FileManager.default.copyItem(atPath: swift, toPath: path)
            let swapping = GraftHost(
                configuration: GraftConfiguration(
                    searchPath: SearchPath(folders: []), loadsFromCopies: true, cacheFolder: cache, isolation: .perPlugin),
                logger: quietLogger)
            try swapping.load(pluginAt: path)
            let picker = try swapping.makeInstance(of: ComponentReference(key: "date_picker"), inputs: ["label": "When?"])
            for _ in 0..<20 { swapping.reload(pluginAt: path, force: true) }
            _ = try? picker.render()
            let before = HotSwapBench.residentBytes(), privateBefore = HotSwapBench.privateResidentBytes()
            let heapBefore = graft_heap()
            var failed = 0
            for _ in 0..<swaps {
                if case .failed = swapping.reload(pluginAt: path, force: true).outcome { failed += 1 }
            }
            _ = try? picker.render()
            let growth = Double(HotSwapBench.residentBytes() - before)
            let privateGrowth = Double(HotSwapBench.privateResidentBytes() - privateBefore), heapAfter = graft_heap()
            // Private memory is what a leak grows. The total also counts clean
            // pages of the graft executable run for the first time, which the
            // kernel maps 64 KiB at a time (fault-around): shared, dropped
            // under pressure, and as likely in any 1000 calls.
            part.figure("swift_isolated_private_rss_growth_kib", privateGrowth / 1024, "KiB over \(swaps) isolated swaps (\(failed) failed)")
            part.figure("swift_isolated_rss_growth_kib", growth / 1024, "KiB, private and file-backed")
            part.figure(
                "swift_isolated_heap_in_use_growth_kib", (Double(heapAfter.in_use) - Double(heapBefore.in_use)) / 1024,
                "KiB of malloc blocks in use (heap size \(format((Double(heapAfter.heap) - Double(heapBefore.heap)) / 1024)) KiB)")
            part.ratio("host private RSS growth / 64 KiB", privateGrowth / 65536)
        }
        return part
    }

    /// Runs each body `perRound` times per round, interleaved over rounds;
    /// returns each body's median per-call time and its p99, in ns.
    static func interleavedSamples(rounds: Int, perRound: Int, _ bodies: [(Int) -> Void]) -> ([(p50: Double, all: [Double])], [Double]) {
        for body in bodies { for index in 0..<20 { body(index) } }
        var samples = [[Double]](repeating: [], count: bodies.count)
        for _ in 0..<rounds {
            for (which, body) in bodies.enumerated() {
                samples[which] += Stopwatch.samples(count: perRound, body)
            }
        }
        return (samples.map { (Stopwatch.median($0), $0) }, samples.map { Stopwatch.percentile($0, 99) })
    }

    static func format(_ value: Double) -> String { BenchPart.format(value) }

    static func compilePingPong(into folder: URL) throws -> String {
        let source = folder.appendingPathComponent("pingpong.c")
        try Data(pingPongSource.utf8).write(to: source)
        let output = folder.appendingPathComponent("pingpong").path
        guard BenchProcess.compileC(["-O2", "-std=c11", source.path, "-o", output]) else { throw BenchPlugin.CompileError(description: "cc failed to build the ping-pong child") }
        return output
    }

    static func isolatedChildPID(of instance: ComponentInstance) throws -> pid_t {
        guard let pid = instance.component.runnerProcessID else {
            throw BenchPlugin.CompileError(description: "the instance is not isolated")
        }
        return pid
    }

    static func luhnChildPID(_ host: GraftHost) throws -> pid_t? {
        try host.validator("luhn").runnerProcessID
    }
}
