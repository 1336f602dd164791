/// The files of a `graft new` project are templates in `Templates/` (a C
/// file, a Makefile, Swift sources, READMEs: each readable as what it is,
/// and checked by building a generated project), embedded in the binary by
/// SwiftPM (`.embedInCode`). Names derived from NAME are written `{{key}}`,
/// `{{validator}}`, `{{action}}`, `{{module}}` and `{{title}}`; a template
/// adds its own (`{{id}}`, `{{dependency}}`, `{{package}}`).
enum ProjectTemplate {
    /// Fills a template's `{{name}}` marks from `name` and `values`.
    static func filler(_ name: PluginName, _ values: [String: String]) -> ([UInt8]) -> String {
        var all = values
        all["key"] = name.key
        all["validator"] = name.validator
        all["action"] = name.action
        all["module"] = name.module
        all["title"] = name.title
        return { template in fill(String(decoding: template, as: UTF8.self), all) }
    }

    /// `text` with each `{{name}}` in `values` replaced; a mark with no value
    /// is a bug in the template, caught by the tests that build the projects.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        var text = text
        for (name, value) in values { text = text.replacing("{{\(name)}}", with: value) }
        return text
    }
}
