import CGraft
import GraftHost

/// `validator-edge-values`: each validator, with params of its declared
/// types, is called with an empty value, a 16 MiB value and a value that is
/// not UTF-8 (straight through its C function: a host's Swift strings cannot
/// hold one, but a C host or a corrupted flow can). Valid or not is the
/// validator's business; crashing, hanging or writing a message that is not
/// UTF-8 is not.
enum ValidatorEdgeValuesCheck {
    static func run(_ probe: ConformanceProbe) {
        guard let plugin = probe.plugin() else { return }
        if plugin.info.validators.isEmpty { probe.skip("the plugin declares no validators") }
        guard !plugin.info.validators.isEmpty, let host = probe.host else { return }
        for contract in plugin.info.validators {
            let key = ConformanceKey.validator(contract)
            let reference = "\(contract.name)@\(contract.version)"
            let params = contract.params.map { SampleValues.paramText(for: $0.type) }
            for (what, value) in [("an empty value", ""), ("a 16 MiB value", SampleValues.huge)] {
                probe.step(key, "validating \(what) with params \(params)")
                do throws(GraftError) {
                    let result = try host.validate(reference, value: .string(value), params: params)
                    if let message = result.message, message.isEmpty {
                        probe.warn(key, expected: "a message for an invalid value (\(what))", got: "an empty message")
                    }
                } catch {
                    probe.note("\(key) could not be called with \(what) and params \(params): \(error.message)")
                }
            }
            guard let validator = try? host.validator(reference) else { continue }
            probe.step(key, "validating a value that is not UTF-8 with params \(params)")
            notUTF8(validator, params: params, key: key, probe)
        }
    }

    private static func notUTF8(_ validator: RegisteredValidator, params: [String], key: String, _ probe: ConformanceProbe) {
        let arena = CArena()
        if let native = validator.nativeCall {
            let text = arena.allocate(CChar.self, count: SampleValues.notUTF8.count + 1)
            for (index, byte) in SampleValues.notUTF8.enumerated() { text[index] = CChar(bitPattern: byte) }
            text[SampleValues.notUTF8.count] = 0
            if case .valueUnreadable = native.callThroughFFI(rawValue: UnsafePointer(text), params: params) {
                probe.note("\(key) takes no text value (\(validator.contract.signature ?? "?")): not given one that is not UTF-8")
            }
            return
        }
        guard let descriptor = validator.descriptor?.pointer, let validate = descriptor.pointee.validate else { return }
        let value = arena.allocate(graft_value_t.self, count: 1)
        value.initialize(to: RawInputs.string(SampleValues.notUTF8, in: arena))
        let cParams = arena.allocate(UnsafePointer<CChar>?.self, count: params.count)
        for (index, param) in params.enumerated() { (cParams + index).initialize(to: arena.cString(param).pointer) }
        let message = OutputWriter(limit: 64 << 10)
        let valid = message.withWriter { writer in
            validate(descriptor, UnsafePointer(value), UnsafePointer(cParams), UInt32(params.count), writer)
        }
        if !valid, String(validating: message.bytes, as: UTF8.self) == nil {
            probe.warn(key, expected: "a UTF-8 message for a value that is not UTF-8", got: "a message that is not UTF-8")
        }
    }
}
