import CGraft
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension RegisteredValidator {
    /// Validates `value` with the editor's string `params`; see `GraftHost.validate`.
    public func validate(_ value: GraftValue, params: [String] = []) throws(GraftError) -> ValidationOutcome {
        try validate(value, params: params, path: .automatic)
    }

    /// `validate` on a chosen call path: `.libffi` skips the typed fast path
    /// (tests, benchmarks, `graft validate --ffi`).
    @inline(__always)
    package func validate(
        _ value: GraftValue, params: [String] = [], path: NativeCallPath
    ) throws(GraftError) -> ValidationOutcome {
        if let telemetry { return try validateMeasured(telemetry, value, params: params, path: path) }
        return try validateUnmeasured(value, params: params, path: path)
    }

    /// Out of line: a host with a metrics or tracing backend pays for it, the hot path above does not.
    @inline(never)
    private func validateMeasured(
        _ telemetry: PluginTelemetry, _ value: GraftValue, params: [String], path: NativeCallPath
    ) throws(GraftError) -> ValidationOutcome {
        try telemetry.measure(.validate, cpu: { plugin.cpuTime }) { () throws(GraftError) in
            try validateUnmeasured(value, params: params, path: path)
        }
    }

    @inline(__always)
    private func validateUnmeasured(
        _ value: GraftValue, params: [String], path: NativeCallPath
    ) throws(GraftError) -> ValidationOutcome {
        guard let nativeCall else { return try validateGeneric(value, params: params) }
        // The hot path first: a common native signature whose arguments convert.
        if path == .automatic, let fastPath, let valid = fastPath.call(value: value, params: params) {
            return answer(valid)
        }
        guard params.count == nativeCall.count - 1 else { throw paramCountMismatch(params.count) }
        let outcome = nativeCall.callThroughFFI(value: value, params: params)
        if case .answered(let valid) = outcome { return answer(valid) }
        return try explain(outcome, value: value, params: params)
    }

    private func answer(_ valid: Bool) -> ValidationOutcome {
        ValidationOutcome(isValid: valid, message: valid ? nil : (contract.message ?? "is not valid"), validator: contract.name, pluginNumber: pluginNumber)
    }

    private func paramCountMismatch(_ count: Int) -> GraftError {
        let signature = native?.signature.description ?? ""
        let takes = (nativeCall?.count ?? 1) - 1
        return GraftError(
            .invalidParam,
            "validator '\(contract.name)' takes \(takes) param\(takes == 1 ? "" : "s") (\(signature)) but got \(count).",
            key: contract.name)
    }

    /// Why a native call did not answer: the value is invalid (it does not
    /// convert), or a param is an error.
    private func explain(_ outcome: NativeCall.Outcome, value: GraftValue, params: [String]) throws(GraftError) -> ValidationOutcome {
        let arguments = native?.signature.arguments ?? []
        switch outcome {
        case .answered(let valid):
            return answer(valid)
        case .valueUnreadable:
            if case .string(let text) = value, text.containsByte(0) {
                return ValidationOutcome(
                    isValid: false, message: "contains a NUL byte, which a C string cannot carry", validator: contract.name, pluginNumber: pluginNumber)
            }
            // The validator never ran: its own message (say, "is out of
            // range") would describe an answer it did not give.
            let message =
                switch arguments.first {
                case .double: "is not a number"
                case .int32: "is not a whole number from -2147483648 to 2147483647"
                case .int64: "is not a whole number"
                case .bool: "is not true or false"
                case .string, nil: contract.message ?? "is not a valid value"
                }
            return ValidationOutcome(isValid: false, message: message, validator: contract.name, pluginNumber: pluginNumber)
        case .paramUnreadable(let index):
            throw GraftError(
                .invalidParam,
                "validator '\(contract.name)' param \(index + 1) ('\(contract.params[safe: index]?.key ?? "param")') is '\(params[index])', which is not a valid \(arguments[safe: index + 1]?.rawValue ?? "param").",
                key: contract.name)
        }
    }

    /// A generic validator: the plugin's function, on graft values.
    private func validateGeneric(_ value: GraftValue, params: [String]) throws(GraftError) -> ValidationOutcome {
        if let runner = plugin.runner { return try runner.validate(self, value, params: params) }
        if let guest = plugin.guest { return try guest.validate(self, value, params: params) }
        guard let descriptor = self.descriptor?.pointer, let validate = descriptor.pointee.validate else {
            throw GraftError(.validatorNotFound, "validator '\(contract.name)' has no function to call.", key: contract.name)
        }
        try checkParamCount(params)
        let arena = CArena()
        let cParams = arena.allocate(UnsafePointer<CChar>?.self, count: params.count)
        for (index, param) in params.enumerated() { (cParams + index).initialize(to: arena.cString(param).pointer) }
        let output = OutputWriter(limit: 64 << 10)
        let valid = output.withWriter { writer in
            value.withCValue { validate(descriptor, $0, UnsafePointer(cParams), UInt32(params.count), writer) }
        }
        if valid { return ValidationOutcome(isValid: true, validator: contract.name, pluginNumber: pluginNumber) }
        return ValidationOutcome(
            isValid: false, message: output.bytes.isEmpty ? (contract.message ?? "is not valid") : output.text,
            validator: contract.name, pluginNumber: pluginNumber)
    }

    /// Refuses params of another count than the validator declares (none declared: any count).
    func checkParamCount(_ params: [String]) throws(GraftError) {
        guard contract.params.isEmpty || params.count == contract.params.count else {
            throw GraftError(
                .invalidParam,
                "validator '\(contract.name)' takes \(contract.params.count) param\(contract.params.count == 1 ? "" : "s") (\(contract.params.map(\.key).joined(separator: ", "))) but got \(params.count).",
                key: contract.name)
        }
    }
}
