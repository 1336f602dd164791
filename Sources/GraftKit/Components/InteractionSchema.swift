/// An interaction a component answers in `interact` (ABI 1.1): what it does
/// and the fields of the data it takes. Declared interactions are what
/// `graft try --interact` suggests, the workbench shows as buttons and
/// `graft check --conformance` calls.
public struct InteractionSchema: Sendable, Hashable {
    public var description: String?
    public var data: [String: InputType]

    public init(description: String? = nil, data: [String: InputType] = [:]) {
        self.description = description
        self.data = data
    }
}
