import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import CGraft

/// Reads a plugin's factories into contracts and checks every rule graft.h
/// states, collecting every problem rather than stopping at the first, so
/// `graft check` can report them all at once.
struct DescriptorReader {
    /// Bounds on what a plugin may declare; a plugin beyond them is broken or hostile.
    static let maximumDescriptors = Int(GRAFT_MAX_DESCRIPTORS)
    static let maximumFields = Int(GRAFT_MAX_FIELDS)

    let path: String
    /// The minor ABI version the plugin's entry declares: fields a later
    /// minor added to a descriptor are read only when it has them.
    let abiMinor: Int
    private(set) var problems: [GraftError] = []

    init(path: String, abiMinor: Int = ABIVersion.host.minor) {
        self.path = path
        self.abiMinor = abiMinor
    }

    private mutating func problem(_ code: GraftError.Code, _ message: String, key: String? = nil, symbol: String? = nil) {
        problems.append(GraftError(code, "\(path): \(message)", path: path, symbol: symbol, key: key))
    }

    // MARK: Components

    mutating func readComponents(_ factory: UnsafePointer<graft_component_factory_t>) -> [ComponentContract] {
        guard let count = factory.pointee.count, let getDescriptor = factory.pointee.get_descriptor else {
            problem(.invalidDescriptor, "the component factory has a NULL count or get_descriptor function.")
            return []
        }
        if factory.pointee.create == nil {
            problem(.invalidDescriptor, "the component factory has a NULL create function.")
        }
        let declared = Int(count(factory))
        guard declared <= Self.maximumDescriptors else {
            problem(.invalidDescriptor, "the component factory declares \(declared) components; the most is \(Self.maximumDescriptors).")
            return []
        }
        var contracts: [ComponentContract] = []
        var seen: Set<ComponentReference> = []
        for index in 0..<declared {
            guard let descriptor = getDescriptor(factory, UInt32(index)) else {
                problem(.invalidDescriptor, "component descriptor #\(index) is NULL although count() is \(declared).")
                continue
            }
            guard let contract = readComponent(laidOut(descriptor), index: index) else { continue }
            if !seen.insert(contract.reference).inserted {
                problem(.duplicateComponent, "declares component \(contract.reference) twice.", key: contract.key)
                continue
            }
            contracts.append(contract)
        }
        return contracts.sorted { ($0.key, $0.version) < ($1.key, $1.version) }
    }

    /// The descriptor as the plugin's ABI laid it out: a 1.0 plugin's ends at
    /// `debug_config`, so only those bytes are read (the memory after them may
    /// not be readable at all); the fields a later minor added stay zero.
    private func laidOut(_ descriptor: UnsafePointer<graft_component_descriptor_t>) -> graft_component_descriptor_t {
        var copy = graft_component_descriptor_t()
        let size = abiMinor >= 1
            ? MemoryLayout<graft_component_descriptor_t>.size
            : MemoryLayout<graft_component_descriptor_t>.offset(of: \.interactions)!
        withUnsafeMutableBytes(of: &copy) { $0.copyMemory(from: UnsafeRawBufferPointer(start: descriptor, count: size)) }
        return copy
    }

    private mutating func readComponent(_ d: graft_component_descriptor_t, index: Int) -> ComponentContract? {
        let before = problems.count
        let key = String(plugin: d.key)
        let label = key.map { "component '\($0)'" } ?? "component #\(index)"
        if let key {
            if !ComponentReference.isValidKey(key) {
                problem(.invalidDescriptor, "\(label) has an invalid key; keys are non-empty and use a-z, 0-9, '_', '.', '-'.", key: key)
            }
        } else {
            problem(.invalidDescriptor, "component #\(index) has a NULL key.")
        }
        if d.version < 1 {
            problem(.invalidDescriptor, "\(label) has version \(d.version); versions start at 1.", key: key)
        }
        let inputs = readFields(d.inputs, count: d.input_count, what: "\(label) input", allowObject: false, key: key)
        var outputs: [OutputSpec] = []
        if d.output_count > 0 && d.outputs == nil {
            problem(.invalidDescriptor, "\(label) declares \(d.output_count) outputs but the outputs pointer is NULL.", key: key)
        } else if Int(d.output_count) > Self.maximumFields {
            problem(.invalidDescriptor, "\(label) declares \(d.output_count) outputs; the most is \(Self.maximumFields).", key: key)
        } else if let pointer = d.outputs {
            var events: Set<String> = []
            for outputIndex in 0..<Int(d.output_count) {
                let output = pointer[outputIndex]
                guard let event = String(plugin: output.event), ComponentReference.isValidKey(event) else {
                    problem(
                        .invalidDescriptor,
                        "\(label) output #\(outputIndex) has an invalid event name '\(String(plugin: output.event) ?? "NULL")'; use a-z, 0-9, '_', '.', '-'.",
                        key: key)
                    continue
                }
                if !events.insert(event).inserted {
                    problem(.invalidDescriptor, "\(label) declares output event '\(event)' twice.", key: key)
                }
                let payload = readFields(
                    output.payload, count: output.payload_count, what: "\(label) event '\(event)' payload field",
                    allowObject: true, key: key)
                outputs.append(OutputSpec(event: event, description: String(plugin: output.description), payload: payload))
            }
        }
        var debugConfig: [String: GraftValue] = [:]
        if let text = String(plugin: d.debug_config), text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) {
            do {
                let value = try GraftValue(json: text)
                if let object = value.objectValue {
                    debugConfig = object
                    for (name, sample) in object.sorted(by: { $0.key < $1.key }) {
                        guard let input = inputs.first(where: { $0.key == name }) else {
                            problem(.invalidDescriptor, "\(label) debug_config sets '\(name)', which is not a declared input.", key: key)
                            continue
                        }
                        if !input.type.accepts(sample) {
                            problem(
                                .invalidDescriptor,
                                "\(label) debug_config gives '\(name)' a \(sample.type.rawValue) but the input is declared \(input.type.rawValue).",
                                key: key)
                        }
                    }
                } else {
                    problem(.invalidDescriptor, "\(label) debug_config is a JSON \(value.type.rawValue), not an object.", key: key)
                }
            } catch {
                problem(.invalidDescriptor, "\(label) debug_config \(error.message)", key: key)
            }
        }
        // ABI 1.1: a 1.0 plugin's descriptor ends at debug_config.
        let interactions = readInteractions(d.interactions, count: d.interaction_count, label: label, key: key)
        guard problems.count == before, let key else { return nil }
        return ComponentContract(
            key: key, version: Int(d.version), name: String(plugin: d.name), description: String(plugin: d.description),
            inputs: inputs, outputs: outputs.sorted { $0.event < $1.event }, debugConfig: debugConfig,
            interactions: interactions)
    }

    private mutating func readInteractions(
        _ pointer: UnsafePointer<graft_interaction_t>?, count: UInt32, label: String, key: String?
    ) -> [InteractionSpec] {
        guard count > 0 else { return [] }
        guard Int(count) <= Self.maximumFields else {
            problem(.invalidDescriptor, "\(label) declares \(count) interactions; the most is \(Self.maximumFields).", key: key)
            return []
        }
        guard let pointer else {
            problem(.invalidDescriptor, "\(label) declares \(count) interactions but the interactions pointer is NULL.", key: key)
            return []
        }
        var interactions: [InteractionSpec] = []
        var names: Set<String> = []
        for index in 0..<Int(count) {
            let interaction = pointer[index]
            guard let name = String(plugin: interaction.name), ComponentReference.isValidKey(name) else {
                problem(
                    .invalidDescriptor,
                    "\(label) interaction #\(index) has an invalid name '\(String(plugin: interaction.name) ?? "NULL")'; use a-z, 0-9, '_', '.', '-' (at most 128 bytes).",
                    key: key)
                continue
            }
            if !names.insert(name).inserted {
                problem(.invalidDescriptor, "\(label) declares interaction '\(name)' twice.", key: key)
                continue
            }
            let data = readFields(
                interaction.data, count: interaction.data_count, what: "\(label) interaction '\(name)' data field",
                allowObject: true, key: key)
            interactions.append(InteractionSpec(name: name, description: String(plugin: interaction.description), data: data))
        }
        return interactions
    }

    private mutating func readFields(
        _ pointer: UnsafePointer<graft_field_t>?, count: UInt32, what: String, allowObject: Bool, key: String?
    ) -> [FieldSpec] {
        guard count > 0 else { return [] }
        guard Int(count) <= Self.maximumFields else {
            problem(.invalidDescriptor, "\(what)s: \(count) declared; the most is \(Self.maximumFields).", key: key)
            return []
        }
        guard let pointer else {
            problem(.invalidDescriptor, "\(what)s: \(count) declared but the pointer is NULL.", key: key)
            return []
        }
        var fields: [FieldSpec] = []
        var seen: Set<String> = []
        for index in 0..<Int(count) {
            let field = pointer[index]
            guard let name = String(plugin: field.key), ComponentReference.isValidKey(name) else {
                problem(
                    .invalidDescriptor,
                    "\(what) #\(index) has an invalid key '\(String(plugin: field.key) ?? "NULL")'; use a-z, 0-9, '_', '.', '-'.",
                    key: key)
                continue
            }
            guard let type = Self.valueType(field.type), type != .null, allowObject || type != .object else {
                let allowed = allowObject ? "string, number, boolean, list or object" : "string, number, boolean or list"
                problem(.invalidDescriptor, "\(what) '\(name)' has type tag \(field.type); use \(allowed).", key: key)
                continue
            }
            if !seen.insert(name).inserted {
                problem(.invalidDescriptor, "\(what) '\(name)' is declared twice.", key: key)
                continue
            }
            fields.append(FieldSpec(key: name, type: type, description: String(plugin: field.description)))
        }
        // Declared order: params are positional, and authors order inputs deliberately.
        return fields
    }

    static func valueType(_ tag: UInt32) -> ValueType? {
        switch tag {
        case UInt32(GRAFT_TYPE_NULL): .null
        case UInt32(GRAFT_TYPE_BOOLEAN): .boolean
        case UInt32(GRAFT_TYPE_NUMBER): .number
        case UInt32(GRAFT_TYPE_STRING): .string
        case UInt32(GRAFT_TYPE_LIST): .list
        case UInt32(GRAFT_TYPE_OBJECT): .object
        default: nil
        }
    }

    // MARK: Validators

    mutating func readValidators(
        _ factory: UnsafePointer<graft_validator_factory_t>
    ) -> [(ValidatorContract, UnsafePointer<graft_validator_descriptor_t>)] {
        guard let count = factory.pointee.count, let getDescriptor = factory.pointee.get_descriptor else {
            problem(.invalidDescriptor, "the validator factory has a NULL count or get_descriptor function.")
            return []
        }
        let declared = Int(count(factory))
        guard declared <= Self.maximumDescriptors else {
            problem(.invalidDescriptor, "the validator factory declares \(declared) validators; the most is \(Self.maximumDescriptors).")
            return []
        }
        var result: [(ValidatorContract, UnsafePointer<graft_validator_descriptor_t>)] = []
        var seen: Set<ComponentReference> = []
        for index in 0..<declared {
            guard let descriptor = getDescriptor(factory, UInt32(index)) else {
                problem(.invalidDescriptor, "validator descriptor #\(index) is NULL although count() is \(declared).")
                continue
            }
            guard let contract = readValidator(descriptor.pointee, index: index) else { continue }
            if !seen.insert(ComponentReference(key: contract.name, version: contract.version)).inserted {
                problem(.invalidDescriptor, "declares validator \(contract.name)@\(contract.version) twice.", key: contract.name)
                continue
            }
            result.append((contract, descriptor))
        }
        return result.sorted { ($0.0.name, $0.0.version) < ($1.0.name, $1.0.version) }
    }

    private mutating func readValidator(_ d: graft_validator_descriptor_t, index: Int) -> ValidatorContract? {
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

    // MARK: Actions

    mutating func readActions(
        _ factory: UnsafePointer<graft_action_factory_t>
    ) -> [(ActionContract, UnsafePointer<graft_action_descriptor_t>)] {
        guard let count = factory.pointee.count, let getDescriptor = factory.pointee.get_descriptor else {
            problem(.invalidDescriptor, "the action factory has a NULL count or get_descriptor function.")
            return []
        }
        let declared = Int(count(factory))
        guard declared <= Self.maximumDescriptors else {
            problem(.invalidDescriptor, "the action factory declares \(declared) actions; the most is \(Self.maximumDescriptors).")
            return []
        }
        var result: [(ActionContract, UnsafePointer<graft_action_descriptor_t>)] = []
        var seen: Set<ComponentReference> = []
        for index in 0..<declared {
            guard let descriptor = getDescriptor(factory, UInt32(index)) else {
                problem(.invalidDescriptor, "action descriptor #\(index) is NULL although count() is \(declared).")
                continue
            }
            let d = descriptor.pointee
            let before = problems.count
            let key = String(plugin: d.key)
            let label = key.map { "action '\($0)'" } ?? "action #\(index)"
            if key == nil || !ComponentReference.isValidKey(key!) {
                problem(.invalidDescriptor, "\(label) has a NULL or invalid key; keys use a-z, 0-9, '_', '.', '-'.", key: key)
            }
            if d.version < 1 { problem(.invalidDescriptor, "\(label) has version \(d.version); versions start at 1.", key: key) }
            if d.invoke == nil { problem(.invalidDescriptor, "\(label) has a NULL invoke function.", key: key) }
            let params = readFields(d.params, count: d.param_count, what: "\(label) param", allowObject: true, key: key)
            guard problems.count == before, let key else { continue }
            let contract = ActionContract(
                key: key, version: Int(d.version), name: String(plugin: d.name), description: String(plugin: d.description),
                params: params)
            if !seen.insert(ComponentReference(key: key, version: contract.version)).inserted {
                problem(.invalidDescriptor, "declares action \(key)@\(contract.version) twice.", key: key)
                continue
            }
            result.append((contract, descriptor))
        }
        return result.sorted { ($0.0.key, $0.0.version) < ($1.0.key, $1.0.version) }
    }
}
