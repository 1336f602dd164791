import GraftHost

/// An object in a flow document whose keys were checked against the ones
/// its place in the document allows.
struct JSONObjectNode {
    let fields: [String: GraftValue]
    let path: JSONPath

    /// The member `key`; a missing or null member is an error naming the path.
    func required(_ key: String) throws(GraftError) -> JSONNode {
        guard let node = optional(key) else {
            throw GraftError(.invalidFlow, "\(path): missing required field \(GraftValueText.quoted(key)).")
        }
        return node
    }

    /// The member `key`, or nil when it is absent or null.
    func optional(_ key: String) -> JSONNode? {
        guard let value = fields[key], value != .null else { return nil }
        return JSONNode(value: value, path: path.key(key))
    }
}
