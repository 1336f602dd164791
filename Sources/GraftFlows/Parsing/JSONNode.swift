import GraftHost

/// A value in a flow document together with where it is, so that every
/// typed read can fail with a message that names the JSON path.
struct JSONNode {
    let value: GraftValue
    let path: JSONPath

    /// A document error at this node (`invalid_config`, the path first).
    func error(_ message: String) -> GraftError {
        GraftError(.invalidFlow, "\(path): \(message)")
    }

    /// This node as an object whose keys must all be in `allowed`: an unknown
    /// key is usually a typo, and silently ignoring it would hide the mistake.
    func object(allowing allowed: Set<String>) throws(GraftError) -> JSONObjectNode {
        let fields = try anyObject()
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw key(unknown).error(
                "unknown field \(GraftValueText.quoted(unknown)); expected \(allowed.sorted().joined(separator: ", ")).")
        }
        return JSONObjectNode(fields: fields, path: path)
    }

    /// This node as an object with any keys (a map of names to values).
    func anyObject() throws(GraftError) -> [String: GraftValue] {
        guard case .object(let fields) = value else { throw error("expected an object, found \(GraftValueText.describe(value)).") }
        return fields
    }

    /// The members of an object, sorted by key so errors and output are stable.
    func members() throws(GraftError) -> [(name: String, node: JSONNode)] {
        try anyObject().keys.sorted().map { name throws(GraftError) in (name, try member(name)) }
    }

    func list() throws(GraftError) -> [JSONNode] {
        guard case .list(let items) = value else { throw error("expected a list, found \(GraftValueText.describe(value)).") }
        return items.enumerated().map { JSONNode(value: $1, path: path.index($0)) }
    }

    func string() throws(GraftError) -> String {
        guard case .string(let text) = value else { throw error("expected a string, found \(GraftValueText.describe(value)).") }
        guard !text.isEmpty else { throw error("must not be empty.") }
        return text
    }

    /// A whole number at least `minimum`, such as a version.
    func integer(minimum: Int) throws(GraftError) -> Int {
        guard case .number(let number) = value, number == number.rounded(), number >= Double(minimum), number <= Double(UInt32.max)
        else {
            throw error("expected a whole number ≥ \(minimum), found \(GraftValueText.describe(value)).")
        }
        return Int(number)
    }

    /// A finite number at least `minimum`, such as a width.
    func number(minimum: Double) throws(GraftError) -> Double {
        guard case .number(let number) = value, number.isFinite, number >= minimum else {
            throw error("expected a number ≥ \(GraftValue.number(minimum).jsonText), found \(GraftValueText.describe(value)).")
        }
        return number
    }

    /// A value type name: string, number, boolean, list or object.
    func valueType() throws(GraftError) -> ValueType {
        let name = try string()
        guard let type = ValueType(rawValue: name), type != .null else {
            throw error("unknown type \(GraftValueText.quoted(name)); use string, number, boolean, list or object.")
        }
        return type
    }

    private func key(_ name: String) -> JSONNode {
        JSONNode(value: .null, path: path.key(name))
    }

    private func member(_ name: String) throws(GraftError) -> JSONNode {
        JSONNode(value: try anyObject()[name] ?? .null, path: path.key(name))
    }
}
