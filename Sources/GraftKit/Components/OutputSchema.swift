/// An output event a component emits, and the fields of its payload.
public struct OutputSchema: Sendable, Hashable {
    public var description: String?
    public var payload: [String: InputType]

    public init(description: String? = nil, payload: [String: InputType] = [:]) {
        self.description = description
        self.payload = payload
    }
}
