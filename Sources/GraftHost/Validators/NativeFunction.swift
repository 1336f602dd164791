import CFFI
import CGraft

#if canImport(Glibc)
import Glibc
#endif

/// A plugin's plain C validator, ready to call: the signature parsed and the
/// libffi call interface prepared once, at registration, and kept (with its
/// type array) for the life of the plugin. Calls are safe from many threads:
/// `ffi_call` only reads the prepared interface.
final class NativeFunction: @unchecked Sendable {
    // Immutable after init; the cif and its type array are only read.
    let signature: NativeSignature
    private let function: graft_native_function_t
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    private let fastPath: FastPath?

    /// Common signatures called through a typed function pointer, skipping
    /// libffi's generic marshalling. Results must equal the libffi path.
    enum FastPath {
        case string(@convention(c) (UnsafePointer<CChar>?) -> Bool)
        case stringInt64Int64(@convention(c) (UnsafePointer<CChar>?, Int64, Int64) -> Bool)
        case doubleDoubleDouble(@convention(c) (Double, Double, Double) -> Bool)
    }

    /// One coerced argument, as the C function receives it. Strings stay Swift
    /// strings (checked free of NUL bytes) and are passed through `withCString`,
    /// which for native strings needs no copy.
    enum Argument {
        case string(String)
        case int32(Int32)
        case int64(Int64)
        case double(Double)
        case bool(Bool)
    }

    init(signature: NativeSignature, function: @escaping graft_native_function_t, name: String) throws(GraftError) {
        self.signature = signature
        self.function = function
        let count = signature.arguments.count
        argumentTypes = .allocate(capacity: count)
        for (index, argument) in signature.arguments.enumerated() {
            argumentTypes[index] = Self.ffiType(argument)
        }
        cif = .allocate(capacity: 1)
        let returnType = signature.returnType == .bool ? graft_ffi_type_uint8() : graft_ffi_type_sint32()
        let status = ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(count), returnType, argumentTypes)
        guard status == FFI_OK else {
            argumentTypes.deallocate()
            cif.deallocate()
            throw GraftError(
                .invalidSignature, "libffi could not prepare a call for validator '\(name)' with signature '\(signature)' (status \(status.rawValue)).",
                key: name)
        }
        switch (signature.returnType, signature.arguments) {
        case (.bool, [.string]): fastPath = .string(unsafeBitCast(function, to: (@convention(c) (UnsafePointer<CChar>?) -> Bool).self))
        case (.bool, [.string, .int64, .int64]):
            fastPath = .stringInt64Int64(unsafeBitCast(function, to: (@convention(c) (UnsafePointer<CChar>?, Int64, Int64) -> Bool).self))
        case (.bool, [.double, .double, .double]):
            fastPath = .doubleDoubleDouble(unsafeBitCast(function, to: (@convention(c) (Double, Double, Double) -> Bool).self))
        default: fastPath = nil
        }
    }

    deinit {
        argumentTypes.deallocate()
        cif.deallocate()
    }

    var hasFastPath: Bool { fastPath != nil }

    private static func ffiType(_ argument: NativeSignature.ArgumentType) -> UnsafeMutablePointer<ffi_type> {
        switch argument {
        case .string: graft_ffi_type_pointer()
        case .int32: graft_ffi_type_sint32()
        case .int64: graft_ffi_type_sint64()
        case .double: graft_ffi_type_double()
        case .bool: graft_ffi_type_uint8()
        }
    }

    /// The typed fast path straight from the flow's value and params, without
    /// building an argument list. Nil when this signature has no fast path or
    /// anything does not convert: the caller then takes the general path,
    /// which also produces the precise error.
    func callFast(value: GraftValue, params: [String]) -> Bool? {
        guard let fastPath else { return nil }
        switch fastPath {
        case .string(let f):
            guard params.isEmpty, case .string(let text) = value else { return nil }
            return Self.withCleanCString(text) { f($0) }
        case .stringInt64Int64(let f):
            guard params.count == 2, case .string(let text) = value,
                let low = Int64(params[0]), let high = Int64(params[1])
            else { return nil }
            return Self.withCleanCString(text) { f($0, low, high) }
        case .doubleDoubleDouble(let f):
            guard params.count == 3 - 1, let low = Double(params[0]), let high = Double(params[1]) else { return nil }
            let number: Double
            switch value {
            case .number(let n): number = n
            case .string(let s):
                guard let n = Double(s) else { return nil }
                number = n
            default: return nil
            }
            return f(number, low, high)
        }
    }

    /// Runs `body` on `text` as a C string, or returns nil when the text holds
    /// a NUL byte (C would see only the part before it). `strlen` against the
    /// stored byte count is the cheapest check: both are fast on native strings.
    private static func withCleanCString(_ text: String, _ body: (UnsafePointer<CChar>) -> Bool) -> Bool? {
        let count = text.utf8.count
        return text.withCString { pointer in strlen(pointer) == count ? body(pointer) : nil }
    }

    /// Calls the function with already-coerced arguments (one per signature
    /// argument, of matching kinds). `useFastPath: false` forces libffi.
    func call(_ arguments: [Argument], useFastPath: Bool = true) -> Bool {
        if useFastPath, let fastPath {
            switch fastPath {
            case .string(let f):
                if arguments.count == 1, case .string(let s) = arguments[0] {
                    return s.withCString { f($0) }
                }
            case .stringInt64Int64(let f):
                if arguments.count == 3, case .string(let s) = arguments[0], case .int64(let a) = arguments[1],
                    case .int64(let b) = arguments[2]
                {
                    return s.withCString { f($0, a, b) }
                }
            case .doubleDoubleDouble(let f):
                if arguments.count == 3, case .double(let a) = arguments[0], case .double(let b) = arguments[1],
                    case .double(let c) = arguments[2]
                {
                    return f(a, b, c)
                }
            }
        }
        return callThroughFFI(arguments)
    }

    private func callThroughFFI(_ arguments: [Argument]) -> Bool {
        let count = arguments.count
        // One 8-byte slot per argument value and the pointers libffi reads
        // them through, on the stack: a call allocates nothing.
        return withUnsafeTemporaryAllocation(byteCount: max(count, 1) * 8, alignment: 8) { storage in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(count, 1)) { values in
                fill(arguments, from: 0, storage: storage.baseAddress!, values: values.baseAddress!)
            }
        }
    }

    /// Stores arguments `index...` into their slots, pinning each string with
    /// `withCString` for the rest of the fill and the call, then calls.
    private func fill(
        _ arguments: [Argument], from index: Int, storage: UnsafeMutableRawPointer,
        values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Bool {
        guard index < arguments.count else {
            // libffi widens small return values to a full ffi_arg.
            var result: ffi_arg = 0
            ffi_call(cif, function, &result, values)
            switch signature.returnType {
            case .bool: return result & 0xFF != 0
            case .int32: return Int32(truncatingIfNeeded: result) != 0
            }
        }
        let slot = storage + index * 8
        values[index] = slot
        switch arguments[index] {
        case .string(let text):
            return text.withCString { pointer in
                slot.storeBytes(of: pointer, as: UnsafePointer<CChar>.self)
                return fill(arguments, from: index + 1, storage: storage, values: values)
            }
        case .int32(let v): slot.storeBytes(of: v, as: Int32.self)
        case .int64(let v): slot.storeBytes(of: v, as: Int64.self)
        case .double(let v): slot.storeBytes(of: v, as: Double.self)
        case .bool(let v): slot.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        }
        return fill(arguments, from: index + 1, storage: storage, values: values)
    }
}
