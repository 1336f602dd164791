/// Validators of an isolated plugin, called in its runner child (where the
/// native ones take the same fast path or libffi): both ends of the
/// `validate` request.
extension PluginRunner {
    func validate(_ validator: RegisteredValidator, _ value: GraftValue, params: [String]) throws(GraftError) -> ValidationOutcome {
        let contract = validator.contract
        let name = contract.reference.description
        let sent = try call(.validate, plugin: validator.plugin, what: CallName("validator", quoting: name), deadline: limits.validator) { writer, slot in
            writer.u32(slot)
            writer.string(name)
            writer.value(value)
            writer.list(params) { $0.string($1) }
        }
        var answer = sent.answer
        do throws(Wire.Violation) {
            guard answer.kind == .validated else { throw Wire.Violation(description: "\(answer.kind)") }
            let valid = try answer.reader.bool()
            return ValidationOutcome(isValid: valid, message: try answer.reader.optional(), validator: contract.name, pluginNumber: validator.pluginNumber)
        } catch {
            throw GraftError(
                .validatorNotFound, "the runner of \(validator.pluginPath) answered validator '\(name)' with \(error.description).",
                key: contract.name)
        }
    }
}

// MARK: - The child's end

extension RunnerService.Server {
    func serveValidate(_ reader: inout WireReader) throws -> (Wire.Kind, [UInt8]) {
        let host = try host(try reader.u32())
        let name = try reader.string(), value = try reader.value()
        let params = try reader.list { (reader) throws(Wire.Violation) in try reader.string() }
        let result = try host.validate(name, value: value, params: params)
        var writer = WireWriter()
        writer.bool(result.isValid)
        writer.optional(result.message)
        return (.validated, writer.bytes)
    }
}
