/// The NAME given to `graft new`, and what the project derives from it: the
/// component key, the validator and action names, a title and (for Swift) a
/// module name. One lowercase word or several joined by `_`, so that every
/// derived name is valid where it goes (keys, C strings, Swift identifiers).
struct PluginName {
    let key: String

    /// Why `text` cannot name a plugin, or nil when it can.
    static func problem(with text: String) -> String? {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first) else {
            return "'\(text)' should start with a lowercase letter (a-z)"
        }
        guard text.count <= 40 else { return "'\(text)' is longer than 40 characters" }
        guard text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            return "'\(text)' may hold only a-z, 0-9 and _ (it becomes the component key and, for Swift, a module name)"
        }
        guard !text.hasSuffix("_"), !text.contains("__") else { return "'\(text)' should not end with _ or hold __" }
        let module = PluginName(key: text).module
        guard !["Graft", "GraftKit", "GraftHost", "CGraft", "Swift", "Testing", "Foundation"].contains(module) else {
            return "'\(text)' would make the module \(module), which clashes with a module the project imports"
        }
        return nil
    }

    var validator: String { key + "_max_length" }
    var action: String { key + "_greet" }

    /// "star_rating" → "StarRating".
    var module: String {
        key.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// "star_rating" → "Star rating".
    var title: String {
        let words = key.split(separator: "_").joined(separator: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
