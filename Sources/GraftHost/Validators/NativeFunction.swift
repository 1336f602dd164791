import CFFI
import CGraft

#if canImport(Glibc)
import Glibc
#endif

/// A plugin's plain C validator, ready to call: the signature parsed and the
/// libffi call interface prepared once, at registration, and kept (with its
/// type array) for the life of the plugin. Calls are safe from many threads:
/// `ffi_call` only reads the prepared interface.
///
/// This class owns the memory; the calls themselves go through `call` and
/// `fastPath`, plain values a registered validator copies inline, so the hot
/// path touches no reference count.
final class NativeFunction: @unchecked Sendable {
    let signature: NativeSignature
    let call: NativeCall
    /// The typed call for this signature, if it is a common one.
    let fastPath: FastPath?

    /// Common signatures called through a typed function pointer, skipping
    /// libffi's generic marshalling. Results must equal the libffi path.
    enum FastPath: Sendable {
        case string(@convention(c) (UnsafePointer<CChar>?) -> Bool)
        case stringInt64Int64(@convention(c) (UnsafePointer<CChar>?, Int64, Int64) -> Bool)
        case doubleDoubleDouble(@convention(c) (Double, Double, Double) -> Bool)
    }

    init(signature: NativeSignature, function: @escaping graft_native_function_t, name: String) throws(GraftError) {
        self.signature = signature
        let count = signature.arguments.count
        let argumentTypes = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: count)
        let kinds = UnsafeMutablePointer<NativeSignature.ArgumentType>.allocate(capacity: count)
        for (index, argument) in signature.arguments.enumerated() {
            argumentTypes[index] = Self.ffiType(argument)
            kinds[index] = argument
        }
        let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
        let returnType = signature.returnType == .bool ? graft_ffi_type_uint8() : graft_ffi_type_sint32()
        let status = ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(count), returnType, argumentTypes)
        var scalars: UInt32 = 0
        for (index, argument) in signature.arguments.enumerated() where argument != .string { scalars |= 1 << index }
        call = NativeCall(
            function: function, cif: cif, argumentTypes: argumentTypes, kinds: kinds, count: count,
            scalarMask: scalars, returnsBool: signature.returnType == .bool)
        guard status == FFI_OK else {
            call.deallocate()
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
        call.deallocate()
    }

    private static func ffiType(_ argument: NativeSignature.ArgumentType) -> UnsafeMutablePointer<ffi_type> {
        switch argument {
        case .string: graft_ffi_type_pointer()
        case .int32: graft_ffi_type_sint32()
        case .int64: graft_ffi_type_sint64()
        case .double: graft_ffi_type_double()
        case .bool: graft_ffi_type_uint8()
        }
    }

    /// Runs `body` on `text` as a C string, or returns nil when the text holds
    /// a NUL byte (C would see only the part before it). `strlen` against the
    /// stored byte count is the cheapest check: both are fast on native strings.
    @inline(__always)
    static func withCleanCString<R>(_ text: String, _ body: (UnsafePointer<CChar>) -> R) -> R? {
        let count = text.utf8.count
        return text.withCString { pointer in strlen(pointer) == count ? body(pointer) : nil }
    }
}

/// The prepared libffi call of a native validator: raw pointers into memory
/// its `NativeFunction` owns, valid while that object lives.
package struct NativeCall: @unchecked Sendable {
    let function: graft_native_function_t
    let cif: UnsafeMutablePointer<ffi_cif>
    let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// The signature's arguments as a plain buffer, read without retaining
    /// the signature's array.
    let kinds: UnsafeMutablePointer<NativeSignature.ArgumentType>
    let count: Int
    /// Bit `i` set when argument `i` is not a string (16 arguments at most).
    let scalarMask: UInt32
    let returnsBool: Bool

    fileprivate func deallocate() {
        argumentTypes.deallocate()
        kinds.deallocate()
        cif.deallocate()
    }

    /// What a general call came to.
    package enum Outcome: Equatable {
        case answered(Bool)
        /// The value does not convert to the first argument's type.
        case valueUnreadable
        /// Param `index` (0-based) does not convert to its argument's type.
        case paramUnreadable(Int)
    }

    /// The general path: coerces the value and each param straight into
    /// libffi's argument slots (on the stack) and calls through `ffi_call`.
    /// `params.count` must be `count - 1`.
    func callThroughFFI(value: GraftValue, params: [String]) -> Outcome {
        // The most common shape, one string (the value): pinned in place and
        // handed to libffi without the general bookkeeping.
        if count == 1, scalarMask == 0, case .string(let text) = value {
            return NativeFunction.withCleanCString(text) { .answered(callPreparedInterface($0)) } ?? .valueUnreadable
        }
        return withSlots(value: value, params: params) { slots, values in
            // The value first: most signatures take it as their one string,
            // and a string value is pinned as it is, without a copy.
            if kinds[0] == .string, case .string(let text) = value {
                return NativeFunction.withCleanCString(text) { pointer in
                    slots.storeBytes(of: pointer, as: UnsafePointer<CChar>.self)
                    return pinStrings(from: 1, value: value, params: params, slots: slots, values: values)
                } ?? .valueUnreadable
            }
            return pinStrings(from: 0, value: value, params: params, slots: slots, values: values)
        }
    }

    /// The general path with the value given as C bytes, unchecked (not
    /// UTF-8, say): the conformance checker hands validators text no Swift
    /// string can hold. Only for signatures whose first argument is a string.
    package func callThroughFFI(rawValue: UnsafePointer<CChar>, params: [String]) -> Outcome {
        guard kinds[0] == .string, params.count == count - 1 else { return .valueUnreadable }
        return withSlots(value: .null, params: params) { slots, values in
            slots.storeBytes(of: rawValue, as: UnsafePointer<CChar>.self)
            return pinStrings(from: 1, value: .null, params: params, slots: slots, values: values)
        }
    }

    /// Runs `body` with one 8-byte slot per argument (every type here fits)
    /// and libffi's array of pointers to them, on the stack (a constant
    /// size), every non-string argument already stored in its slot.
    private func withSlots(
        value: GraftValue, params: [String],
        _ body: (UnsafeMutableRawPointer, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Outcome
    ) -> Outcome {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: NativeSignature.maximumArguments) { slots in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: NativeSignature.maximumArguments) { values in
                let slots = UnsafeMutableRawPointer(slots.baseAddress!)
                let values = values.baseAddress!
                for index in 0..<count { values[index] = slots + index * 8 }
                var scalars = scalarMask
                while scalars != 0 {
                    let index = scalars.trailingZeroBitCount
                    scalars &= scalars - 1
                    guard storeScalar(index, value: value, params: params, into: slots + index * 8)
                    else { return index == 0 ? .valueUnreadable : .paramUnreadable(index - 1) }
                }
                return body(slots, values)
            }
        }
    }

    /// Converts a non-string argument into its slot; false when it does not
    /// convert.
    private func storeScalar(_ index: Int, value: GraftValue, params: [String], into slot: UnsafeMutableRawPointer) -> Bool {
        let source: GraftValue = index == 0 ? value : .string(params[index - 1])
        switch kinds[index] {
        case .string: return true
        case .int32:
            guard let n = NativeCoercion.integer(source), let v = Int32(exactly: n) else { return false }
            slot.storeBytes(of: v, as: Int32.self)
        case .int64:
            guard let v = NativeCoercion.integer(source) else { return false }
            slot.storeBytes(of: v, as: Int64.self)
        case .double:
            guard let v = NativeCoercion.double(source) else { return false }
            slot.storeBytes(of: v, as: Double.self)
        case .bool:
            guard let v = NativeCoercion.bool(source) else { return false }
            slot.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        }
        return true
    }

    /// Pins the string arguments from `index` on as C strings, one nested
    /// `withCString` each (no copy for Swift's native strings), then calls.
    private func pinStrings(
        from index: Int, value: GraftValue, params: [String], slots: UnsafeMutableRawPointer,
        values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Outcome {
        // The next string argument: the next clear bit of the scalar mask.
        let strings = ~scalarMask & (UInt32(truncatingIfNeeded: (1 << count) - 1)) & ~(UInt32(truncatingIfNeeded: (1 << index) - 1))
        guard strings != 0 else { return .answered(invoke(values)) }
        let index = strings.trailingZeroBitCount
        let unreadable: Outcome = index == 0 ? .valueUnreadable : .paramUnreadable(index - 1)
        guard let text = index == 0 ? NativeCoercion.text(value) : params[index - 1] else { return unreadable }
        return NativeFunction.withCleanCString(text) { pointer in
            (slots + index * 8).storeBytes(of: pointer, as: UnsafePointer<CChar>.self)
            return pinStrings(from: index + 1, value: value, params: params, slots: slots, values: values)
        } ?? unreadable
    }

    /// `ffi_call` on arguments in place; non-zero means valid.
    private func invoke(_ values: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        // libffi widens small return values to a full ffi_arg.
        var result: ffi_arg = 0
        ffi_call(cif, function, &result, values)
        return returnsBool ? result & 0xFF != 0 : Int32(truncatingIfNeeded: result) != 0
    }

    /// libffi's call alone, on a C string already made: `callThroughFFI`'s
    /// one-string path, and its floor for the benchmark. Only for a signature of one string.
    func callPreparedInterface(_ argument: UnsafePointer<CChar>) -> Bool {
        var argument = argument
        return withUnsafeMutablePointer(to: &argument) { slot in
            var values: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(slot)
            return invoke(&values)
        }
    }
}

extension NativeFunction.FastPath {
    /// The typed call straight from the flow's value and params, without
    /// building an argument list. Nil when anything does not convert: the
    /// caller then takes the general path, which also produces the precise
    /// error.
    @inline(__always)
    func call(value: GraftValue, params: [String]) -> Bool? {
        switch self {
        case .string(let f):
            guard params.isEmpty, case .string(let text) = value else { return nil }
            return NativeFunction.withCleanCString(text) { f($0) }
        case .stringInt64Int64(let f):
            guard params.count == 2, case .string(let text) = value,
                let low = Int64(params[0]), let high = Int64(params[1])
            else { return nil }
            return NativeFunction.withCleanCString(text) { f($0, low, high) }
        case .doubleDoubleDouble(let f):
            guard params.count == 2, let low = Double(params[0]), let high = Double(params[1]) else { return nil }
            let number: Double? = switch value {
            case .number(let n): n
            case .string(let s): Double(s)
            default: nil
            }
            return number.map { f($0, low, high) }
        }
    }
}
