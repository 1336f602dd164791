// JSON text Graft reads from plugins and their users: debugConfigs, story
// configs, flows, validator params. Nothing may crash or recurse without
// bound; the reader and its diagnosis must agree; what reads must read back
// the same from the text Graft writes for it.
import CFuzz

#if canImport(Glibc)
import Glibc
#endif

@testable import GraftHost

// libFuzzer looks for this name; the driver below is handed it too (whichever main the link keeps).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let value = JSONReader.value(text)
    let diagnosis = JSONReader.diagnose(text)
    precondition((value == nil) == (diagnosis != nil), "the reader and its diagnosis disagree")
    if let diagnosis {
        precondition(diagnosis.offset >= 0 && diagnosis.offset <= text.utf8.count, "a diagnosis outside the text")
        _ = JSONSyntax.describeError(in: text)
    }
    if let value {
        precondition(JSONReader.value(value.jsonText) == value, "a value does not read back from its own JSON text")
    }
    return 0
}

var argc = CommandLine.argc
var argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?(CommandLine.unsafeArgv)
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzJSON(UnsafeRawPointer(data!), size)
})
