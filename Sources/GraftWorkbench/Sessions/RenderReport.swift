import GraftHost

/// What one render of a component session looked like, as the page shows
/// it: the output (or the error card's code and reason), the warnings this
/// render raised (drift, unknown inputs, a restarted plugin), and the
/// inputs it was given. `sequence` grows with every render of the session,
/// so a page drops an answer older than one it already shows.
struct RenderReport: Sendable {
    enum Reason: String, Sendable {
        case open, inputs, interact, mediaType = "media-type", swap, size, play
    }

    var session: String
    var instance: String
    var component: ComponentReference
    var pluginID: String?
    var sequence: Int
    var reason: Reason
    var inputs: [String: GraftValue]
    var rendering: Rendering?
    var error: GraftError?
    var warnings: [GraftWarning]
    /// For an interaction: whether the component knew it.
    var answered: Bool?
    /// The contract of the build now serving (it may change with a swap).
    var contract: ComponentContract?
    /// The container size the component is given (0 is unbounded).
    var size: ContainerSize

    var json: GraftValue {
        var object: [String: GraftValue] = [
            "type": "render",
            "session": .string(session), "instance": .string(instance), "component": .string(component.description),
            "key": .string(component.key), "version": .number(Double(component.version)),
            "sequence": .number(Double(sequence)), "reason": .string(reason.rawValue), "inputs": .object(inputs),
            "warnings": .list(warnings.map(\.workbenchJSON)),
            "size": ["width": .number(size.width), "height": .number(size.height)],
        ]
        if let pluginID { object["plugin"] = .string(pluginID) }
        if let rendering {
            object["mediaType"] = .string(rendering.mediaType.rawValue)
            object["output"] = .string(rendering.text)
        }
        if let error { object["error"] = error.workbenchJSON }
        if let answered { object["answered"] = .bool(answered) }
        if let contract { object["contract"] = ContractJSON.component(contract) }
        return .object(object)
    }
}
