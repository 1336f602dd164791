/// What a `{{…}}` in a flow document names: a flow variable, or a field of
/// the payload of the event that triggered the action.
package enum TemplateReference: Sendable, Hashable, CustomStringConvertible {
    case variable(String)
    case payload(String)

    package var description: String {
        switch self {
        case .variable(let name): "{{variables.\(name)}}"
        case .payload(let key): "{{payload.\(key)}}"
        }
    }
}
