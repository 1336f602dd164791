/// `graft new swift NAME`: a Swift package whose dynamic library is the
/// plugin (GraftKit), exporting only `graft_entry`, with tests of its parts.
/// Same component, validator and action as the C template.
enum SwiftPluginTemplate {
    /// `dependency` is the `.package(…)` line for Graft; `packageName` what its products name it by.
    static func files(for name: PluginName, id: String, dependency: String, packageName: String) -> [(path: String, text: String)] {
        let module = name.module
        let fill = ProjectTemplate.filler(name, ["id": id, "dependency": dependency, "package": packageName])
        return [
            ("Package.swift", fill(PackageResources.swift_Package_swift_template)),
            ("exports.map", fill(PackageResources.swift_exports_map_template)),
            ("Sources/\(module)/\(module)Plugin.swift", fill(PackageResources.swift_Plugin_swift_template)),
            ("Sources/\(module)/\(module)Component.swift", fill(PackageResources.swift_Component_swift_template)),
            ("Sources/\(module)/MaxLength.swift", fill(PackageResources.swift_MaxLength_swift_template)),
            ("Sources/\(module)/Greet.swift", fill(PackageResources.swift_Greet_swift_template)),
            ("Tests/\(module)Tests/\(module)Tests.swift", fill(PackageResources.swift_Tests_swift_template)),
            ("README.md", fill(PackageResources.swift_README_md_template)),
            (".gitignore", ".build/\nPackage.resolved\n"),
        ]
    }
}
