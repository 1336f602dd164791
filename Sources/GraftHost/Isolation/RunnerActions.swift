/// Custom actions of an isolated plugin, run in its runner child: both ends
/// of the `action` request.
extension PluginRunner {
    func invoke(_ action: RegisteredAction, params: [String: GraftValue], payload: GraftValue?) throws(GraftError) -> ActionOutcome {
        let key = action.contract.reference.description
        let sent = try call(.action, plugin: action.plugin, what: CallName("action", quoting: key)) { writer, slot in
            writer.u32(slot)
            writer.string(key)
            writer.value(.object(params))
            writer.bool(payload != nil)
            if let payload { writer.value(payload) }
        }
        var answer = sent.answer
        do throws(Wire.Violation) {
            guard answer.kind == .acted else { throw Wire.Violation(description: "\(answer.kind)") }
            let ok = try answer.reader.bool(), error = try answer.reader.optional()
            guard case .object(let variables) = try answer.reader.value() else { throw Wire.Violation(description: "variables") }
            let result = try answer.reader.bool() ? try answer.reader.value() : nil
            return ActionOutcome(ok: ok, error: error, variables: variables, result: result)
        } catch {
            throw GraftError(
                .actionFailed, "the runner of \(action.pluginPath) answered action '\(key)' with \(error.description).",
                key: action.contract.key)
        }
    }
}

// MARK: - The child's end

extension RunnerService.Server {
    func serveAction(_ reader: inout WireReader) throws -> (Wire.Kind, [UInt8]) {
        let host = try host(try reader.u32())
        let key = try reader.string()
        let params = try reader.value()
        let payload = try reader.bool() ? try reader.value() : nil
        let result = try host.invokeAction(key, params: params.objectValue ?? [:], payload: payload)
        var writer = WireWriter()
        writer.bool(result.ok)
        writer.optional(result.error)
        writer.value(.object(result.variables))
        writer.bool(result.result != nil)
        if let value = result.result { writer.value(value) }
        return (.acted, writer.bytes)
    }
}
