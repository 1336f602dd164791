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

    /// One coerced argument, as the C function receives it.
    enum Argument {
        case string([CChar])  // NUL-terminated
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

    /// Calls the function with already-coerced arguments (one per signature
    /// argument, of matching kinds). `useFastPath: false` forces libffi.
    func call(_ arguments: [Argument], useFastPath: Bool = true) -> Bool {
        if useFastPath, let fastPath {
            switch fastPath {
            case .string(let f):
                if arguments.count == 1, case .string(let s) = arguments[0] {
                    return s.withUnsafeBufferPointer { f($0.baseAddress) }
                }
            case .stringInt64Int64(let f):
                if arguments.count == 3, case .string(let s) = arguments[0], case .int64(let a) = arguments[1],
                    case .int64(let b) = arguments[2]
                {
                    return s.withUnsafeBufferPointer { f($0.baseAddress, a, b) }
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
        // Storage for every argument value, 8 bytes each, plus the pointers
        // libffi reads them through; strings stay pinned during the call.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 8, alignment: 8)
        let values = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: max(count, 1))
        defer {
            storage.deallocate()
            values.deallocate()
        }
        var pinned: [UnsafeMutablePointer<CChar>] = []
        defer { for string in pinned { string.deallocate() } }
        for (index, argument) in arguments.enumerated() {
            let slot = storage + index * 8
            switch argument {
            case .string(let chars):
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: chars.count)
                copy.initialize(from: chars, count: chars.count)
                pinned.append(copy)
                slot.storeBytes(of: UnsafePointer(copy), as: UnsafePointer<CChar>.self)
            case .int32(let v): slot.storeBytes(of: v, as: Int32.self)
            case .int64(let v): slot.storeBytes(of: v, as: Int64.self)
            case .double(let v): slot.storeBytes(of: v, as: Double.self)
            case .bool(let v): slot.storeBytes(of: v ? 1 : 0, as: UInt8.self)
            }
            values[index] = slot
        }
        // libffi widens small return values to a full ffi_arg.
        var result: ffi_arg = 0
        ffi_call(cif, function, &result, values)
        switch signature.returnType {
        case .bool: return result & 0xFF != 0
        case .int32: return Int32(truncatingIfNeeded: result) != 0
        }
    }
}
