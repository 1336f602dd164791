import CGraft

extension graft_validator_factory_t: DescriptorFactory {
    static var kind: String { "validator" }

    static func count(_ factory: UnsafePointer<Self>) -> UInt32? {
        guard let count = factory.pointee.count, factory.pointee.get_descriptor != nil else { return nil }
        return count(factory)
    }

    static func descriptor(_ factory: UnsafePointer<Self>, at index: UInt32) -> UnsafePointer<graft_validator_descriptor_t>? {
        factory.pointee.get_descriptor!(factory, index)
    }

    static func contract(
        of descriptor: UnsafePointer<graft_validator_descriptor_t>, index: Int, reader: inout DescriptorReader
    ) -> ValidatorContract? {
        reader.readValidator(descriptor.pointee, index: index)
    }
}

extension DescriptorReader {
    fileprivate mutating func readValidator(_ d: graft_validator_descriptor_t, index: Int) -> ValidatorContract? {
        let before = problems.count
        let name = String(plugin: d.name)
        let label = name.map { "validator '\($0)'" } ?? "validator #\(index)"
        if name == nil || !ComponentReference.isValidKey(name!) {
            problem(.invalidDescriptor, "\(label) has a NULL or invalid name; names use a-z, 0-9, '_', '.', '-'.", key: name)
        }
        if d.version < 1 {
            problem(.invalidDescriptor, "\(label) has version \(d.version); versions start at 1.", key: name)
        }
        var params = readFields(d.params, count: d.param_count, what: "\(label) param", allowObject: true, key: name)
        let kind: ValidatorContract.Kind
        switch d.kind {
        case UInt32(GRAFT_VALIDATOR_GENERIC):
            kind = .generic
            if d.validate == nil {
                problem(.invalidDescriptor, "\(label) is generic but its validate function is NULL.", key: name)
            }
        case UInt32(GRAFT_VALIDATOR_NATIVE):
            guard let text = String(plugin: d.signature) else {
                problem(.invalidSignature, "\(label) is native but its signature is NULL.", key: name, symbol: name)
                return nil
            }
            do {
                let signature = try NativeSignature(parsing: text)
                kind = .native(signature: signature.description)
                if d.function == nil {
                    problem(.invalidSignature, "\(label) declares signature '\(text)' but its function pointer is NULL.", key: name)
                }
                let paramTypes = signature.paramType
                if params.isEmpty && !paramTypes.isEmpty {
                    params = paramTypes.enumerated().map { FieldSpec(key: "param\($0.offset + 1)", type: $0.element) }
                } else if params.count != paramTypes.count {
                    problem(
                        .invalidSignature,
                        "\(label) declares \(params.count) params but its signature '\(text)' takes \(paramTypes.count) after the value.",
                        key: name)
                }
            } catch {
                problem(.invalidSignature, "\(label): \(error.message)", key: name)
                return nil
            }
        default:
            problem(.invalidDescriptor, "\(label) has kind \(d.kind); use GRAFT_VALIDATOR_GENERIC or GRAFT_VALIDATOR_NATIVE.", key: name)
            return nil
        }
        guard problems.count == before, let name else { return nil }
        return ValidatorContract(
            name: name, version: Int(d.version), description: String(plugin: d.description), kind: kind,
            params: params, message: String(plugin: d.message))
    }
}
