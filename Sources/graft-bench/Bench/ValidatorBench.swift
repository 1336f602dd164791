import CGraftSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// `graft bench validators`: the bundled `luhn` on a 16-digit value,
/// (a) the C function through a typed pointer, (b) `validate` end to end on
/// the fast path, (c) the same forced through libffi, (d) Python ctypes on
/// the same function of the same .so, when python3 is installed.
enum ValidatorBench {
    static let value = "4111111111111111"

    static func run(host: GraftHost, iterations: Int) throws -> BenchPart {
        var part = BenchPart(name: "validators (luhn, 16 digits)")
        guard let address = host.nativeFunctionAddress(ofValidator: "luhn"),
            let plugin = host.validators.first(where: { $0.contract.name == "luhn" })
        else {
            part.notes.append("the Checkout plugin (luhn) is not on the plugin path; build it with `swift build -c release`")
            return part
        }
        // On one CPU, with the Python child that inherits it: on this kind of
        // shared machine two CPUs can differ by half, which a ratio between
        // runs on different ones would show as noise.
        let pinned = CPUPinning.pinToCurrentCPU()
        defer { pinned?.restore() }
        if let pinned { part.notes.append("pinned to CPU \(pinned.cpu) for this part") }

        typealias Luhn = @convention(c) (UnsafePointer<CChar>?) -> Bool
        let luhn = unsafeBitCast(address, to: Luhn.self)
        let cValue = strdup(value)!
        defer { free(cValue) }
        let value = GraftValue.string(Self.value)

        // A handle looked up once: the same calls without the name lookup.
        let handle = try host.validator("luhn")
        let bodies: [(Int) -> Void] = [
            { _ in blackHole(luhn(cValue)) },
            { _ in blackHole(try? host.validate("luhn", value: value)) },
            { _ in blackHole(try? host.validate("luhn", value: value, path: .libffi)) },
            { _ in blackHole(try? handle.validate(value)) },
            { _ in blackHole(try? handle.validate(value, path: .libffi)) },
            { _ in blackHole(handle.callPreparedInterface(cValue)) },
        ]
        let measured = Stopwatch.compare(iterations: iterations, bodies)
        let (ns, ratio) = measured
        let ffi = ns[2]
        part.figure("direct_ns", ns[0])
        part.figure("fast_ns", ns[1])
        part.figure("ffi_ns", ffi)
        part.figure("handle_fast_ns", ns[3])
        part.figure("handle_ffi_ns", ns[4])
        part.figure("ffi_call_ns", ns[5])
        part.ratio("fast / direct", ratio[1])
        part.ratio("ffi / direct", ratio[2])
        part.ratio("handle fast / direct", ratio[3])
        part.ratio("handle ffi / direct", ratio[4])
        // libffi's own call on a ready argument: no path through libffi can
        // be cheaper, so ctypes / ffi can never exceed ctypes / ffi_call.
        part.ratio("ffi_call alone / direct", ratio[5])
        // ctypes in another process: interleaved with rounds of (c) and of
        // ffi_call alone, so each ratio compares runs made back to back.
        let rounds = max(iterations / 4, 1000)
        let round = { (body: @escaping (Int) -> Void) in
            { Stopwatch.nanosecondsPerOperation(iterations: rounds, rounds: 1, warmup: true, body) }
        }
        if let ctypes = ctypesReference(
            library: plugin.pluginPath, iterations: rounds, against: [round(bodies[2]), round(bodies[5])])
        {
            part.figure("ctypes_ns", ctypes.nanoseconds)
            part.ratio("ctypes / ffi", ctypes.ratios[0])
            part.ratio("ctypes / ffi_call alone", ctypes.ratios[1])
        } else {
            part.notes.append("python3 with ctypes not found: ctypes_ns skipped")
        }
        return part
    }

    /// Runs the same `.so` function from Python through ctypes (walking
    /// graft.h's structs to find it) in rounds, each followed at once by one
    /// round of every body in `against`. Returns ctypes' ns per call and its
    /// ratio to each body (medians over rounds), or nil without python3.
    static func ctypesReference(
        library: String, iterations: Int, rounds: Int = 7, against: [() -> Double]
    ) -> (nanoseconds: Double, ratios: [Double])? {
        let script = #"""
            import ctypes, os, sys, time
            lib = ctypes.CDLL(sys.argv[1])
            n = int(sys.argv[2])
            P = ctypes.c_void_p
            class Host(ctypes.Structure):
                _fields_ = [("struct_size", ctypes.c_uint32), ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                            ("name", ctypes.c_char_p), ("version", ctypes.c_char_p), ("host_data", P), ("plugin_path", ctypes.c_char_p),
                            ("log", P), ("get_extension", P)]
            class Entry(ctypes.Structure):
                _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("struct_size", ctypes.c_uint32),
                            ("id", ctypes.c_char_p), ("version", ctypes.c_char_p), ("name", ctypes.c_char_p),
                            ("vendor", ctypes.c_char_p), ("description", ctypes.c_char_p),
                            ("init", P), ("deinit", P), ("get_factory", P)]
            class Factory(ctypes.Structure):
                _fields_ = [("count", P), ("get_descriptor", P)]
            class Descriptor(ctypes.Structure):
                _fields_ = [("name", ctypes.c_char_p), ("version", ctypes.c_uint32), ("description", ctypes.c_char_p),
                            ("kind", ctypes.c_uint32), ("params", P), ("param_count", ctypes.c_uint32), ("message", ctypes.c_char_p),
                            ("signature", ctypes.c_char_p), ("function", P), ("validate", P)]
            lib.graft_entry.restype = ctypes.POINTER(Entry)
            entry = lib.graft_entry().contents
            host = Host(ctypes.sizeof(Host), 1, 0, b"python", b"0", None, sys.argv[1].encode(), None, None)
            if not ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.POINTER(Host))(entry.init)(ctypes.byref(host)): sys.exit(3)
            factory = ctypes.cast(ctypes.CFUNCTYPE(P, ctypes.c_char_p)(entry.get_factory)(b"graft.validator-factory/1"),
                                  ctypes.POINTER(Factory)).contents
            count = ctypes.CFUNCTYPE(ctypes.c_uint32, P)(factory.count)(ctypes.addressof(factory))
            get = ctypes.CFUNCTYPE(ctypes.POINTER(Descriptor), P, ctypes.c_uint32)(factory.get_descriptor)
            luhn = None
            for i in range(count):
                d = get(ctypes.addressof(factory), i).contents
                if d.name == b"luhn": luhn = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_char_p)(d.function)
            if luhn is None: sys.exit(4)
            value = b"4111111111111111"
            for _ in range(n // 10): luhn(value)
            requests, answers = os.fdopen(3, "r"), os.fdopen(os.dup(3), "w")  # the bench's socket
            print("ready", file=answers, flush=True)
            for line in requests:  # one timed round per line, after a warm-up
                for _ in range(n // 10): luhn(value)
                start = time.perf_counter_ns()
                for _ in range(n): luhn(value)
                print((time.perf_counter_ns() - start) / n, file=answers, flush=True)
            """#
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else { return nil }
        let pid = try? BenchProcess.start("/usr/bin/env", ["python3", "-c", script, library, String(iterations)], channel: sockets[1])
        close(sockets[1])
        guard let pid else {
            close(sockets[0])
            return nil
        }
        defer {
            close(sockets[0])  // Python's loop ends, and with it Python
            if BenchProcess.wait(pid, until: .now + .seconds(10)) == nil { BenchProcess.stop(pid, within: .seconds(1)) }
        }
        var lines = LineReader(sockets[0])
        guard lines.next() == "ready" else { return nil }
        var samples: [Double] = []
        var ratios: [[Double]] = []
        for _ in 0..<rounds {
            // A Python round, then the Swift rounds, back to back: both see
            // the machine in the same state.
            guard write(sockets[0], "go\n", 3) == 3 else { return nil }
            guard let line = lines.next(), let ctypes = Double(line) else { return nil }
            samples.append(ctypes)
            ratios.append(against.map { ctypes / $0() })
        }
        return (Stopwatch.median(samples), against.indices.map { index in Stopwatch.median(ratios.map { $0[index] }) })
    }
}

/// Keeps the process on the CPU it runs on, and puts the old mask back.
struct CPUPinning {
    let cpu: Int32
    private var previous: graft_cpu_mask_t

    /// Nil when the kernel refuses (then nothing changed).
    static func pinToCurrentCPU() -> CPUPinning? {
        var previous = graft_cpu_mask_t()
        let cpu = graft_pin_to_current_cpu(&previous)
        return cpu < 0 ? nil : CPUPinning(cpu: cpu, previous: previous)
    }

    func restore() {
        var previous = self.previous
        graft_restore_cpu_mask(&previous)
    }
}
