import GraftHost

/// Replaces `{{variables.NAME}}` and `{{payload.KEY}}` in a value with what
/// they name now. A string that is exactly one reference becomes the value
/// itself (`"{{payload.price}}"` → `9.99`); a reference inside other text is
/// interpolated as text. What cannot be found becomes null and is reported
/// in `missing`, so the caller can warn. The runner uses it, and so does the
/// debugger's sandbox to show what an action would receive.
package struct TemplateResolver: Sendable {
    package var variables: [String: GraftValue]
    package var payload: GraftValue?

    package init(variables: [String: GraftValue], payload: GraftValue? = nil) {
        self.variables = variables
        self.payload = payload
    }

    package func resolve(_ value: GraftValue) -> (value: GraftValue, missing: [TemplateReference]) {
        var missing: [TemplateReference] = []
        let resolved = resolve(value, missing: &missing)
        return (resolved, missing)
    }

    private func resolve(_ value: GraftValue, missing: inout [TemplateReference]) -> GraftValue {
        switch value {
        case .string(let text):
            // The document was checked when it was read, so a string that no
            // longer parses cannot occur; it is kept as literal text if it does.
            guard text.contains("{{"), let template = try? Template(parsing: text, at: .root) else { return value }
            if let reference = template.wholeReference { return lookUp(reference, missing: &missing) }
            var result = ""
            for part in template.parts {
                switch part {
                case .text(let literal): result += literal
                case .reference(let reference): result += GraftValueText.interpolated(lookUp(reference, missing: &missing))
                }
            }
            return .string(result)
        case .list(let items):
            return .list(items.map { resolve($0, missing: &missing) })
        case .object(let fields):
            return .object(fields.mapValues { resolve($0, missing: &missing) })
        case .null, .bool, .number:
            return value
        }
    }

    private func lookUp(_ reference: TemplateReference, missing: inout [TemplateReference]) -> GraftValue {
        let found: GraftValue? =
            switch reference {
            case .variable(let name): variables[name]
            case .payload(let key): payload?[key]
            }
        guard let found else {
            missing.append(reference)
            return .null
        }
        return found
    }
}
