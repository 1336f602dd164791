/// Everything the host needs to know about one component key and version,
/// and the factory that creates its instances.
public struct CustomComponentDefinition: Sendable {
    /// Creates an instance from resolved inputs; `nil` fails the creation.
    public typealias Factory = @Sendable (ComponentProps, ComponentContext) -> (any CustomComponent)?

    public var name: String?
    public var description: String?
    /// Declared inputs: `string`, `number`, `boolean` or `list`.
    public var inputs: [String: InputType]
    /// Declared output events.
    public var outputs: [String: OutputSchema]
    /// Sample inputs for the debugger; keys must be declared inputs.
    public var debugConfig: [String: Value]
    /// The interactions `interact` answers, by name.
    public var interactions: [String: InteractionSchema]
    /// Named example configurations beside `debugConfig`, in the order a debugger lists them.
    public var stories: [ComponentStory]
    public var factory: Factory

    public init(
        name: String? = nil, description: String? = nil,
        inputs: [String: InputType] = [:], outputs: [String: OutputSchema] = [:],
        interactions: [String: InteractionSchema] = [:],
        debugConfig: [String: Value] = [:], stories: [ComponentStory] = [], factory: @escaping Factory
    ) {
        self.name = name
        self.description = description
        self.inputs = inputs
        self.outputs = outputs
        self.debugConfig = debugConfig
        self.interactions = interactions
        self.stories = stories
        self.factory = factory
    }
}
