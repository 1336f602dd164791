/// A location in a flow document, written the way findings and errors show
/// it: `$.screens[0].instances[1].inputs.label`. Keys that are not plain
/// identifiers are bracketed and quoted (`$.screens[0].instances[0].on["date.picked"]`)
/// so a path always reads back unambiguously.
struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    private(set) var description: String

    static let root = JSONPath(description: "$")

    func key(_ name: String) -> JSONPath {
        guard Self.isIdentifier(name) else {
            return JSONPath(description: description + "[" + GraftValueText.quoted(name) + "]")
        }
        return JSONPath(description: description + "." + name)
    }

    func index(_ position: Int) -> JSONPath {
        JSONPath(description: description + "[\(position)]")
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic && first.isASCII else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }
}
