import GraftHost

/// Resolves `{{variables.NAME}}` and `{{payload.KEY}}` in wired actions and
/// bindings the way the flow runner does (Examples/flows/README.md,
/// "Templates"): a string that is exactly one template becomes the value
/// itself; a template inside other text is interpolated (strings as they
/// are, whole numbers without a fraction, null as nothing, lists and objects
/// as JSON). A name that cannot be found becomes null and is reported.
///
/// GraftFlows' resolver is internal to it; this mirrors its documented rules
/// so the sandbox can show what an action would receive without running it.
struct WiringTemplates {
    var variables: [String: GraftValue]
    var payload: GraftValue?

    func resolve(_ value: GraftValue) -> (value: GraftValue, missing: [String]) {
        var missing: [String] = []
        let resolved = resolve(value, missing: &missing)
        return (resolved, missing)
    }

    private func resolve(_ value: GraftValue, missing: inout [String]) -> GraftValue {
        switch value {
        case .string(let text):
            guard text.contains("{{") else { return value }
            return resolve(text: text, missing: &missing)
        case .list(let items):
            return .list(items.map { resolve($0, missing: &missing) })
        case .object(let fields):
            return .object(fields.mapValues { resolve($0, missing: &missing) })
        case .null, .bool, .number:
            return value
        }
    }

    private func resolve(text: String, missing: inout [String]) -> GraftValue {
        var parts: [(literal: String, name: String?)] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            parts.append((String(rest[..<open.lowerBound]), nil))
            parts.append(("", rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)))
            rest = rest[close.upperBound...]
        }
        parts.append((String(rest), nil))
        let nonEmpty = parts.filter { $0.name != nil || !$0.literal.isEmpty }
        if nonEmpty.count == 1, let name = nonEmpty[0].name { return lookUp(name, missing: &missing) }
        var result = ""
        for part in parts {
            if let name = part.name {
                result += Self.interpolated(lookUp(name, missing: &missing))
            } else {
                result += part.literal
            }
        }
        return .string(result)
    }

    private func lookUp(_ name: String, missing: inout [String]) -> GraftValue {
        let found: GraftValue? =
            if name.hasPrefix("variables.") {
                variables[String(name.dropFirst("variables.".count))]
            } else if name.hasPrefix("payload.") {
                payload?[String(name.dropFirst("payload.".count))]
            } else {
                nil
            }
        guard let found else {
            missing.append("{{\(name)}}")
            return .null
        }
        return found
    }

    private static func interpolated(_ value: GraftValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number, .list, .object: value.jsonText
        }
    }
}
