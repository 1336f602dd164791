import CGraft
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension GraftHost {
    /// The C function behind a native validator, so a benchmark can call it
    /// directly as the baseline for `validate`.
    package func nativeFunctionAddress(ofValidator name: String) -> UnsafeRawPointer? {
        guard let validator = try? table.validators.resolve(ComponentReference(parsing: name)),
            let function = validator.descriptor?.pointer.pointee.function
        else { return nil }
        return unsafeBitCast(function, to: UnsafeRawPointer.self)
    }
}

extension RegisteredValidator {
    /// Calls a `bool(string)` native validator through its prepared libffi
    /// interface and nothing else: the floor under the libffi path, so a
    /// benchmark can show what `ffi_call` itself costs. Nil for other kinds.
    package func callPreparedInterface(_ argument: UnsafePointer<CChar>) -> Bool? {
        guard let native, native.signature.returnType == .bool, native.signature.arguments.count == 1,
            native.signature.arguments[0] == .string
        else { return nil }
        return native.call.callPreparedInterface(argument)
    }
}
