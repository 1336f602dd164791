import GraftHost

/// Finds the `{{…}}` references anywhere inside a value (strings nested in
/// lists and objects included), checking their syntax on the way.
enum TemplateScan {
    struct Found: Sendable {
        var reference: TemplateReference
        /// Where the string holding the reference is.
        var path: JSONPath
    }

    static func references(in value: GraftValue, at path: JSONPath) throws(GraftError) -> [Found] {
        switch value {
        case .string(let text):
            guard text.contains("{{") else { return [] }
            return try Template(parsing: text, at: path).references.map { Found(reference: $0, path: path) }
        case .list(let items):
            var found: [Found] = []
            for (index, item) in items.enumerated() { found += try references(in: item, at: path.index(index)) }
            return found
        case .object(let fields):
            var found: [Found] = []
            for key in fields.keys.sorted() { found += try references(in: fields[key] ?? .null, at: path.key(key)) }
            return found
        case .null, .bool, .number:
            return []
        }
    }
}
