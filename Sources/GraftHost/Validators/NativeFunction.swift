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
    static func withCleanCString<R>(_ text: String, _ body: (UnsafePointer<CChar>) -> R) -> R? {
        let count = text.utf8.count
        return text.withCString { pointer in strlen(pointer) == count ? body(pointer) : nil }
    }

    /// What a general call came to.
    enum Outcome: Equatable {
        case answered(Bool)
        /// The value does not convert to the first argument's type.
        case valueUnreadable
        /// Param `index` (0-based) does not convert to its argument's type.
        case paramUnreadable(Int)
    }

    /// The general path: coerces the value and each param straight into
    /// libffi's argument slots (on the stack) and calls through `ffi_call`.
    /// `params.count` must be `signature.arguments.count - 1`.
    func callThroughFFI(value: GraftValue, params: [String]) -> Outcome {
        let count = signature.arguments.count
        return withUnsafeTemporaryAllocation(byteCount: count * 8, alignment: 8) { storage in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: count) { values in
                fill(from: 0, value: value, params: params, storage: storage.baseAddress!, values: values.baseAddress!)
            }
        }
    }

    /// Converts argument `index`, stores it, and recurses; a string stays
    /// pinned by `withCString` until the call below it returns.
    private func fill(
        from index: Int, value: GraftValue, params: [String], storage: UnsafeMutableRawPointer,
        values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Outcome {
        guard index < signature.arguments.count else {
            // libffi widens small return values to a full ffi_arg.
            var result: ffi_arg = 0
            ffi_call(cif, function, &result, values)
            switch signature.returnType {
            case .bool: return .answered(result & 0xFF != 0)
            case .int32: return .answered(Int32(truncatingIfNeeded: result) != 0)
            }
        }
        let unreadable: Outcome = index == 0 ? .valueUnreadable : .paramUnreadable(index - 1)
        let source: GraftValue = index == 0 ? value : .string(params[index - 1])
        let slot = storage + index * 8
        values[index] = slot
        switch signature.arguments[index] {
        case .string:
            guard let text = NativeCoercion.text(source) else { return unreadable }
            return Self.withCleanCString(text) { pointer in
                slot.storeBytes(of: pointer, as: UnsafePointer<CChar>.self)
                return fill(from: index + 1, value: value, params: params, storage: storage, values: values)
            } ?? unreadable
        case .int32:
            guard let n = NativeCoercion.integer(source), let v = Int32(exactly: n) else { return unreadable }
            slot.storeBytes(of: v, as: Int32.self)
        case .int64:
            guard let v = NativeCoercion.integer(source) else { return unreadable }
            slot.storeBytes(of: v, as: Int64.self)
        case .double:
            guard let v = NativeCoercion.double(source) else { return unreadable }
            slot.storeBytes(of: v, as: Double.self)
        case .bool:
            guard let v = NativeCoercion.bool(source) else { return unreadable }
            slot.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        }
        return fill(from: index + 1, value: value, params: params, storage: storage, values: values)
    }
}
