/// `graft new c NAME`: a plugin in plain C that builds with `make` (graft.h
/// through pkg-config), with a test that loads it through graft.h as a host
/// does. The component counts taps, the validator limits a length, the action
/// greets: small, but each shows the calls a real one makes.
enum CPluginTemplate {
    static func files(for name: PluginName, id: String) -> [(path: String, text: String)] {
        let fill = ProjectTemplate.filler(name, ["id": id])
        return [
            ("\(name.key).c", fill(PackageResources.c_plugin_c_template)),
            ("test_plugin.c", fill(PackageResources.c_test_plugin_c_template)),
            ("Makefile", fill(PackageResources.c_Makefile_template)),
            ("README.md", fill(PackageResources.c_README_md_template)),
            ("stories/\(name.key).stories.json", fill(PackageResources.stories_json_template)),
            (".gitignore", "build/\n"),
        ]
    }
}
