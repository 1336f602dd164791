import Foundation
@_spi(Benchmarks) import GraftHost

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
        part.ratio("fast / direct", ratio[1], target: "<= 2")
        part.ratio("ffi / direct", ratio[2], target: "<= 3")
        part.ratio("handle fast / direct", ratio[3])
        part.ratio("handle ffi / direct", ratio[4])
        // libffi's own call on a ready argument: no path through libffi can
        // be cheaper, so ctypes / ffi can never exceed ctypes / ffi_call.
        part.ratio("ffi_call alone / direct", ratio[5])
        if let ctypes = ctypesNanoseconds(library: plugin.pluginPath, iterations: max(iterations / 4, 1000)) {
            part.figure("ctypes_ns", ctypes)
            part.ratio("ctypes / ffi", ctypes / ffi, target: ">= 8")
            part.ratio("ctypes / ffi_call alone", ctypes / ns[5])
        } else {
            part.notes.append("python3 with ctypes not found: ctypes_ns skipped")
        }
        return part
    }

    /// Runs the same `.so` function from Python through ctypes, walking
    /// graft.h's structs to find it, and returns ns per call (median of rounds).
    static func ctypesNanoseconds(library: String, iterations: Int) -> Double? {
        let script = #"""
            import ctypes, sys, time
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
            samples = []
            for _ in range(5):
                start = time.perf_counter_ns()
                for _ in range(n): luhn(value)
                samples.append((time.perf_counter_ns() - start) / n)
            samples.sort()
            print(samples[len(samples) // 2])
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, library, String(iterations)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
