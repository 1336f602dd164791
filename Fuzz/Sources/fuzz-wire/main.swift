// The bytes a runner or scanner child sends its host: frames, and in them
// plugin descriptions, values, warnings and errors. A child is the plugin's:
// it may send anything. Nothing here may crash, hang or allocate without
// bound, and what decodes must encode back to the same.
import CFuzz

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

final class Subject: RunnerSubject {
    var subjectID: String { "com.example.fuzz" }
    var subjectPath: String { "/plugins/fuzz.so" }
}

final class Sink {}

// libFuzzer looks for this name; the driver below is handed it too (whichever main the link keeps).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // The host's side of the protocol, with a create, a render about a live
    // instance and a follower in flight, takes every frame in turn.
    var calls = RunnerCalls<Subject, Sink>(outputLimit: 64 << 10)
    let subject = Subject()
    calls.attach(Sink(), to: 1)
    var sent: [UInt8] = []
    for kind in [Wire.Kind.create, .render, .validate] {
        _ = calls.add(kind, plugin: subject, what: "\(kind)", context: nil, deadline: .seconds(1), payload: [], into: &sent)
    }
    _ = calls.add(.render, plugin: subject, what: "follower", context: nil, deadline: nil, payload: [], into: &sent)
    calls.post(.destroy, payload: [1, 0, 0, 0])

    // The frames, split by the readers' one splitter; fed in reads of any size, it must find the same frames.
    var whole = WireFrames()
    whole.append(bytes)
    var frames: [(header: Wire.Header, payload: [UInt8])] = []
    while let frame = try? whole.next() { frames.append(frame) }
    var pieces = WireFrames(), again: [(header: Wire.Header, payload: [UInt8])] = []
    let step = Int(bytes.first ?? 1) % 37 + 1
    for start in stride(from: 0, to: bytes.count, by: step) {
        pieces.append(Array(bytes[start..<min(start + step, bytes.count)]))
        while let frame = try? pieces.next() { again.append(frame) }
    }
    precondition(again.count == frames.count && zip(again, frames).allSatisfy { $0.header == $1.header && $0.payload == $1.payload })
    precondition(pieces.taken == whole.taken)
    for (header, payload) in frames {
        if case .kill = calls.received(header, payload) { calls.end { _, _ in GraftError(.pluginCrashed, "killed") } }
        readEverything(payload[...])
    }
    _ = calls.overdue(now: .now + .seconds(2))
    readEverything(bytes[...])
    return 0
}

/// Every reader the host applies to a child's payload; what decodes is
/// written and read back, and must be the same.
func readEverything(_ payload: ArraySlice<UInt8>) {
    var reader = WireReader(payload)
    if let plugin = try? reader.plugin(path: "/plugins/fuzz.so") {
        // Compared as bytes: a debugConfig may hold NaN, which is not equal to itself.
        var writer = WireWriter()
        writer.plugin(plugin)
        var again = WireReader(writer.bytes)
        let back = try? again.plugin(path: "/plugins/fuzz.so")
        var rewritten = WireWriter()
        if let back { rewritten.plugin(back) }
        precondition(back != nil && rewritten.bytes == writer.bytes, "a plugin description does not survive a round trip")
    }
    reader = WireReader(payload)
    if let value = try? reader.value() {
        var writer = WireWriter()
        writer.value(value)
        var again = WireReader(writer.bytes)
        let back = try? again.value()
        precondition(back.map { same($0, value) } == true, "a value does not survive a round trip")
    }
    reader = WireReader(payload)
    _ = try? reader.childError(path: nil)
    reader = WireReader(payload)
    _ = try? reader.warnings(instanceID: "1")
    reader = WireReader(payload)
    _ = Wire.helloMismatch(&reader)
    _ = try? reader.sandboxStatus()
    reader = WireReader(payload)
    _ = try? reader.component()
}

func readEverything(_ payload: [UInt8]) { readEverything(payload[...]) }

/// Equal, with NaN equal to itself (a child may send any bit pattern).
func same(_ a: GraftValue, _ b: GraftValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.object(let x), .object(let y)): return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } == true }
    default: return a == b
    }
}

var argc = CommandLine.argc
var argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?(CommandLine.unsafeArgv)
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzWire(UnsafeRawPointer(data!), size)
})
