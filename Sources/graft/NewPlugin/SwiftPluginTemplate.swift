/// `graft new swift NAME`: a Swift package whose dynamic library is the
/// plugin (GraftKit), exporting only `graft_entry`, with tests of its parts.
/// Same component, validator and action as the C template.
enum SwiftPluginTemplate {
    /// `dependency` is the `.package(…)` line for GraftKit; `packageName` what its products name it by; `sdk` whether
    /// the project holds a copy of the Swift SDK (GraftKit/) rather than naming Graft.
    static func files(for name: PluginName, id: String, dependency: String, packageName: String, sdk: Bool) -> [(path: String, text: String)] {
        let module = name.module
        let note = sdk ? sdkNote : "`Package.swift` names Graft with `traits: []`: SwiftPM then resolves none of what only Graft's tools need."
        let fill = ProjectTemplate.filler(name, ["id": id, "dependency": dependency, "package": packageName, "dependencyNote": note])
        return [
            ("Package.swift", fill(PackageResources.swift_Package_swift_template)),
            ("exports.map", fill(PackageResources.swift_exports_map_template)),
            ("Sources/\(module)/\(module)Plugin.swift", fill(PackageResources.swift_Plugin_swift_template)),
            ("Sources/\(module)/\(module)Component.swift", fill(PackageResources.swift_Component_swift_template)),
            ("Sources/\(module)/MaxLength.swift", fill(PackageResources.swift_MaxLength_swift_template)),
            ("Sources/\(module)/Greet.swift", fill(PackageResources.swift_Greet_swift_template)),
            ("Tests/\(module)Tests/\(module)Tests.swift", fill(PackageResources.swift_Tests_swift_template)),
            ("README.md", fill(PackageResources.swift_README_md_template)),
            ("stories/\(name.key).stories.json", fill(PackageResources.stories_json_template)),
            (".gitignore", ".build/\nPackage.resolved\n"),
        ]
    }

    private static let sdkNote = """
        `GraftKit/` is Graft's Swift SDK, copied here by `graft new swift`: GraftKit and graft.h, with no dependencies, so the
        project resolves no package, builds offline and does not need the Graft checkout it came from. Commit it with the
        plugin; `graft sdk --swift-package GraftKit` refreshes it from the `graft` on your PATH. To build against Graft itself
        instead, name it in `Package.swift` with `traits: []`, which keeps what only Graft's tools need out of the resolve.
        """
}
