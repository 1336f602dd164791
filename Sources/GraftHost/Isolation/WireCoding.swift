import GraftSupport

/// How the host's own types travel in a frame's payload (and in the registry
/// cache, which stores scan answers as they arrived).
extension WireWriter {
    mutating func size(_ size: ContainerSize) { f64(size.width); f64(size.height) }
    /// A count, then that many bytes.
    mutating func counted(_ raw: [UInt8]) { u32(UInt32(raw.count)); bytes += raw }

    mutating func value(_ value: GraftValue) {
        switch value {
        case .null: u8(0)
        case .bool(let flag): u8(1); bool(flag)
        case .number(let number): u8(2); f64(number)
        case .string(let text): u8(3); string(text)
        case .list(let items): u8(4); list(items) { $0.value($1) }
        case .object(let fields):
            u8(5)
            list(fields.sorted { $0.key < $1.key }) { writer, field in
                writer.string(field.key)
                writer.value(field.value)
            }
        }
    }

    mutating func fields(_ fields: [FieldSpec]) {
        list(fields) { writer, field in
            writer.string(field.key)
            writer.string(field.type.rawValue)
            writer.optional(field.description)
        }
    }

    /// An output or an interaction: its name, description and fields.
    mutating func named(_ name: String, _ description: String?, _ fields: [FieldSpec]) {
        string(name)
        optional(description)
        self.fields(fields)
    }

    mutating func component(_ contract: ComponentContract) {
        string(contract.key)
        u32(UInt32(contract.version))
        optional(contract.name)
        optional(contract.description)
        fields(contract.inputs)
        list(contract.outputs) { $0.named($1.event, $1.description, $1.payload) }
        value(.object(contract.debugConfig))
        list(contract.interactions) { $0.named($1.name, $1.description, $1.data) }
        list(contract.stories) { writer, story in
            writer.string(story.name)
            writer.optional(story.description)
            writer.value(.object(story.config))
        }
    }

    mutating func validator(_ contract: ValidatorContract) {
        string(contract.name)
        u32(UInt32(contract.version))
        optional(contract.description)
        optional(contract.signature)
        fields(contract.params)
        optional(contract.message)
    }

    mutating func action(_ contract: ActionContract) {
        string(contract.key)
        u32(UInt32(contract.version))
        optional(contract.name)
        optional(contract.description)
        fields(contract.params)
    }

    mutating func plugin(_ info: PluginDescription) {
        string(info.id)
        string(info.version)
        string(info.name)
        optional(info.vendor)
        optional(info.description)
        u16(UInt16(info.abi.major))
        u16(UInt16(info.abi.minor))
        bool(info.canUnload)
        list(info.components) { $0.component($1) }
        list(info.validators) { $0.validator($1) }
        list(info.actions) { $0.action($1) }
        list(info.permissions) { writer, request in
            writer.string(request.permission.description)
            writer.string(request.reason)
        }
    }

    mutating func warnings(_ warnings: [GraftWarning]) {
        list(warnings) { writer, warning in
            writer.string(warning.code.rawValue)
            writer.string(warning.message)
        }
    }

    mutating func error(_ error: GraftError) {
        string(error.code.rawValue)
        string(error.message)
        optional(error.symbol)
        optional(error.key)
    }
}

extension WireReader {
    mutating func size() throws(Wire.Violation) -> ContainerSize { ContainerSize(width: try f64(), height: try f64()) }
    mutating func counted() throws(Wire.Violation) -> [UInt8] { Array(try raw(Int(try u32()))) }

    /// A value that must be an object (`what` names it in the violation).
    mutating func object(_ what: String) throws(Wire.Violation) -> [String: GraftValue] {
        guard case .object(let object) = try value() else { throw Wire.Violation(description: "\(what) that is not an object") }
        return object
    }

    mutating func value(depth: Int = 0) throws(Wire.Violation) -> GraftValue {
        guard depth < 64 else { throw Wire.Violation(description: "a value nested more than 64 deep") }
        switch try u8() {
        case 0: return .null
        case 1: return .bool(try bool())
        case 2: return .number(try f64())
        case 3: return .string(try string())
        case 4: return .list(try list { (reader) throws(Wire.Violation) in try reader.value(depth: depth + 1) })
        case 5:
            let fields = try list { (reader) throws(Wire.Violation) in (try reader.string(), try reader.value(depth: depth + 1)) }
            return .object(Dictionary(fields, uniquingKeysWith: { _, last in last }))
        case let tag: throw Wire.Violation(description: "unknown value tag \(tag)")
        }
    }

    mutating func fields() throws(Wire.Violation) -> [FieldSpec] {
        try list { (reader) throws(Wire.Violation) in
            let key = try reader.string(), typeName = try reader.string()
            guard let type = ValueType(rawValue: typeName) else {
                throw Wire.Violation(description: "unknown type '\(typeName)'")
            }
            return FieldSpec(key: key, type: type, description: try reader.optional())
        }
    }

    private mutating func version() throws(Wire.Violation) -> Int { Int(try u32()) }

    mutating func component() throws(Wire.Violation) -> ComponentContract {
        let key = try string(), version = try version(), name = try optional(), description = try optional()
        let inputs = try fields()
        let outputs = try list { (reader) throws(Wire.Violation) in
            OutputSpec(event: try reader.string(), description: try reader.optional(), payload: try reader.fields())
        }
        let debugConfig = try object("a debugConfig")
        let interactions = try list { (reader) throws(Wire.Violation) in
            InteractionSpec(name: try reader.string(), description: try reader.optional(), data: try reader.fields())
        }
        let stories = try list { (reader) throws(Wire.Violation) in
            StorySpec(name: try reader.string(), description: try reader.optional(), config: try reader.object("a story's config"))
        }
        return ComponentContract(
            key: key, version: version, name: name, description: description, inputs: inputs, outputs: outputs,
            debugConfig: debugConfig, interactions: interactions, stories: stories)
    }

    mutating func validator() throws(Wire.Violation) -> ValidatorContract {
        let name = try string(), version = try version(), description = try optional(), signature = try optional()
        return ValidatorContract(
            name: name, version: version, description: description,
            kind: signature.map { .native(signature: $0) } ?? .generic, params: try fields(), message: try optional())
    }

    mutating func action() throws(Wire.Violation) -> ActionContract {
        ActionContract(
            key: try string(), version: try version(), name: try optional(), description: try optional(),
            params: try fields())
    }

    /// A plugin as described by a scan of `path`.
    mutating func plugin(path: String) throws(Wire.Violation) -> PluginDescription {
        let id = try string(), version = try string(), name = try string(), vendor = try optional()
        let description = try optional()
        let abi = ABIVersion(major: Int(try u16()), minor: Int(try u16()))
        let canUnload = try bool()
        return PluginDescription(
            id: id, version: version, name: name, vendor: vendor, description: description, path: path, imagePath: path,
            abi: abi, canUnload: canUnload, components: try list { (reader) throws(Wire.Violation) in try reader.component() },
            validators: try list { (reader) throws(Wire.Violation) in try reader.validator() },
            actions: try list { (reader) throws(Wire.Violation) in try reader.action() },
            permissions: try list { (reader) throws(Wire.Violation) in
                let text = try reader.string()
                guard let permission = Permission(text) else { throw Wire.Violation(description: "a permission that does not read: \(text.escapingControls)") }
                return PermissionRequest(permission, reason: try reader.string())
            })
    }

    mutating func warnings(instanceID: String?) throws(Wire.Violation) -> [GraftWarning] {
        try list { (reader) throws(Wire.Violation) in
            let code = try reader.string()
            return GraftWarning(GraftError.Code(rawValue: code) ?? .contractMismatch, try reader.string(), instanceID: instanceID)
        }
    }

    /// An error a child sent about the file at `path`: only one of the codes
    /// that say how the plugin itself failed (`GraftError.Code.reportableByChild`),
    /// never one of the host's own (a pin, trust, the sandbox, a crash), and
    /// its words escaped. Anything else breaks the protocol.
    mutating func childError(path: String?) throws(Wire.Violation) -> GraftError {
        var error = try self.error(path: path)
        guard GraftError.Code.reportableByChild.contains(error.code) else {
            throw Wire.Violation(description: "an error with code \(error.code.rawValue), which only the host may report")
        }
        error.message = error.message.escapingControls
        error.symbol = error.symbol?.escapingControls
        error.key = error.key?.escapingControls
        return error
    }

    /// An error about the file at `path`.
    mutating func error(path: String?) throws(Wire.Violation) -> GraftError {
        let rawCode = try string()
        guard let code = GraftError.Code(rawValue: rawCode) else { throw Wire.Violation(description: "unknown error code '\(rawCode)'") }
        return GraftError(code, try string(), path: path, symbol: try optional(), key: try optional())
    }
}
