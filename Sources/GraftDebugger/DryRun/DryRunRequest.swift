import GraftHost

/// What to try in the sandbox: a component, its inputs, the steps to apply,
/// and how to render it.
public struct DryRunRequest: Sendable, Hashable {
    public var component: ComponentReference
    /// The inputs; nil means the placement's bindings (with `instance`) or
    /// else the component's debugConfig.
    public var inputs: [String: GraftValue]?
    /// A placed instance of the sandbox's flow whose wiring shows which
    /// actions each event would run; it must place `component`.
    public var instance: String?
    public var steps: [DryRunStep]
    public var mediaType: MediaType
    public var containerSize: ContainerSize

    public init(
        component: ComponentReference, inputs: [String: GraftValue]? = nil, instance: String? = nil,
        steps: [DryRunStep] = [], mediaType: MediaType = .plain, containerSize: ContainerSize = .unbounded
    ) {
        self.component = component
        self.inputs = inputs
        self.instance = instance
        self.steps = steps
        self.mediaType = mediaType
        self.containerSize = containerSize
    }
}
