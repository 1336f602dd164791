import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// A string from a flow document split into literal text and `{{…}}`
/// references. `{{variables.NAME}}` and `{{payload.KEY}}` are the only
/// forms; NAME and KEY are taken whole (a key may itself contain dots, as
/// payload keys may), and spaces inside the braces are ignored.
struct Template: Sendable {
    enum Part: Sendable {
        case text(String)
        case reference(TemplateReference)
    }

    let parts: [Part]

    /// Parses `text`; a `{{` without `}}` or an unknown name is an error naming `path`.
    init(parsing text: String, at path: JSONPath) throws(GraftError) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                throw GraftError(.invalidFlow, "\(path): \(GraftValueText.quoted(text)) opens \"{{\" without closing it with \"}}\".")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
            parts.append(.reference(try Self.reference(named: name, in: text, at: path)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The reference when the whole string is one `{{…}}`: it then resolves
    /// to the referenced value itself, keeping its type (a number stays a number).
    var wholeReference: TemplateReference? {
        if parts.count == 1, case .reference(let reference) = parts[0] { return reference }
        return nil
    }

    var references: [TemplateReference] {
        parts.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
    }

    private static func reference(named name: String, in text: String, at path: JSONPath) throws(GraftError) -> TemplateReference {
        for (prefix, make) in [("variables.", TemplateReference.variable), ("payload.", TemplateReference.payload)] {
            if name.hasPrefix(prefix), name.count > prefix.count, !name.contains(where: \.isWhitespace) {
                return make(String(name.dropFirst(prefix.count)))
            }
        }
        throw GraftError(
            .invalidFlow,
            "\(path): \(GraftValueText.quoted(text)) uses {{\(name)}}; templates are {{variables.NAME}} or {{payload.KEY}}.")
    }
}
