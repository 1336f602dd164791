/// A named, typed slot: a component input, a payload field or a param.
public struct FieldSpec: Sendable, Hashable, Codable {
    public package(set) var key: String
    public package(set) var type: ValueType
    public package(set) var description: String?

    package init(key: String, type: ValueType, description: String? = nil) {
        self.key = key
        self.type = type
        self.description = description
    }
}

/// An output event and the schema of its payload.
public struct OutputSpec: Sendable, Hashable {
    public package(set) var event: String
    public package(set) var description: String?
    public package(set) var payload: [FieldSpec]

    package init(event: String, description: String? = nil, payload: [FieldSpec] = []) {
        self.event = event
        self.description = description
        self.payload = payload
    }
}

/// An interaction a component declares (ABI 1.1): what `interact` answers,
/// and the fields of the data it takes.
public struct InteractionSpec: Sendable, Hashable {
    public package(set) var name: String
    public package(set) var description: String?
    public package(set) var data: [FieldSpec]

    package init(name: String, description: String? = nil, data: [FieldSpec] = []) {
        self.name = name
        self.description = description
        self.data = data
    }
}

/// A named example configuration of a component (ABI 1.3): inputs a debugger
/// or a workbench offers beside the debugConfig, and `graft try --story` renders.
public struct StorySpec: Sendable, Hashable {
    public package(set) var name: String
    public package(set) var description: String?
    public package(set) var config: [String: GraftValue]

    package init(name: String, description: String? = nil, config: [String: GraftValue] = [:]) {
        self.name = name
        self.description = description
        self.config = config
    }
}

/// What a component promises: key, version, typed inputs, output events with
/// their payload schemas, the interactions it answers (empty for ABI 1.0
/// plugins, which cannot declare them), and sample inputs for the debugger:
/// the debugConfig and any named stories.
public struct ComponentContract: Sendable, Hashable, DeclaredContract {
    public package(set) var key: String
    public package(set) var version: Int
    public package(set) var name: String?
    public package(set) var description: String?
    public package(set) var inputs: [FieldSpec]
    public package(set) var outputs: [OutputSpec]
    public package(set) var debugConfig: [String: GraftValue]
    public package(set) var interactions: [InteractionSpec]
    /// In the order the plugin declares them.
    public package(set) var stories: [StorySpec]

    package init(
        key: String, version: Int, name: String? = nil, description: String? = nil,
        inputs: [FieldSpec] = [], outputs: [OutputSpec] = [], debugConfig: [String: GraftValue] = [:],
        interactions: [InteractionSpec] = [], stories: [StorySpec] = []
    ) {
        self.key = key
        self.version = version
        self.name = name
        self.description = description
        self.inputs = inputs
        self.outputs = outputs
        self.debugConfig = debugConfig
        self.interactions = interactions
        self.stories = stories
    }

    public var reference: ComponentReference { ComponentReference(key: key, version: version) }

    public func input(_ key: String) -> FieldSpec? { inputs.first { $0.key == key } }
    public func output(_ event: String) -> OutputSpec? { outputs.first { $0.event == event } }
    public func interaction(_ name: String) -> InteractionSpec? { interactions.first { $0.name == name } }
    public func story(_ name: String) -> StorySpec? { stories.first { $0.name == name } }
}

/// A validator as a plugin declares it.
public struct ValidatorContract: Sendable, Hashable, DeclaredContract {
    public enum Kind: Sendable, Hashable {
        /// Takes graft values; answers valid and a message.
        case generic
        /// A plain C function with a declared signature, called through libffi.
        case native(signature: String)
    }

    public package(set) var name: String
    public package(set) var version: Int
    public package(set) var description: String?
    public package(set) var kind: Kind
    public package(set) var params: [FieldSpec]
    public package(set) var message: String?

    public var signature: String? { if case .native(let s) = kind { s } else { nil } }
    public var reference: ComponentReference { ComponentReference(key: name, version: version) }
}

/// A custom action as a plugin declares it.
public struct ActionContract: Sendable, Hashable, DeclaredContract {
    public package(set) var key: String
    public package(set) var version: Int
    public package(set) var name: String?
    public package(set) var description: String?
    public package(set) var params: [FieldSpec]

    public var reference: ComponentReference { ComponentReference(key: key, version: version) }
}
