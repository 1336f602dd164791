/// `graft new c NAME`: a plugin in plain C that builds with `make` (graft.h
/// through pkg-config), with a test that loads it through graft.h as a host
/// does. The component counts taps, the validator limits a length, the action
/// greets: small, but each shows the calls a real one makes. With `wasm`,
/// the Makefile also builds the same source as a WebAssembly plugin
/// (graft_wasm_bridge.c, clang's wasm32-wasi target) and tests it too.
enum CPluginTemplate {
    static func files(for name: PluginName, id: String, wasm: Bool = false) -> [(path: String, text: String)] {
        let fill = ProjectTemplate.filler(name, ["id": id].merging(wasm ? wasmParts(name) : noWasm) { $1 })
        return [
            ("\(name.key).c", fill(PackageResources.c_plugin_c_template)),
            ("test_plugin.c", fill(PackageResources.c_test_plugin_c_template)),
            ("Makefile", fill(PackageResources.c_Makefile_template)),
            ("README.md", fill(PackageResources.c_README_md_template)),
            ("stories/\(name.key).stories.json", fill(PackageResources.stories_json_template)),
            (".gitignore", "build/\n"),
        ]
    }

    static let noWasm = ["wasm_usage": "", "wasm_variables": "", "wasm_all": "", "wasm_rules": "", "wasm_test": ""]

    /// The Makefile's WebAssembly parts (docs/WasmABI.md in Graft's checkout).
    static func wasmParts(_ name: PluginName) -> [String: String] {
        [
            "wasm_usage": " and build/\(name.key).wasm (WebAssembly: one file for every machine)",
            "wasm_variables": """
                # The same source as a WebAssembly plugin: graft_wasm_bridge.c (beside graft.h) gives it
                # the exports of Graft's WebAssembly ABI. Needs clang's wasm32-wasi target with wasi-libc
                # (Debian: clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32).
                WASM_CC ?= clang-14
                WASM := build/\(name.key).wasm
                GRAFT_INCLUDE := $(patsubst -I%,%,$(firstword $(filter -I%,$(GRAFT_CFLAGS))))

                """,
            "wasm_all": " $(WASM)",
            "wasm_rules": """
                $(WASM): \(name.key).c
                \t@mkdir -p build
                \t$(WASM_CC) --target=wasm32-wasi -mexec-model=reactor -std=c11 $(CFLAGS) $(GRAFT_CFLAGS) -o $@ \(name.key).c $(GRAFT_INCLUDE)/graft_wasm_bridge.c


                """,
            "wasm_test": "\n\tgraft test --only-plugin-path --plugin-path $(WASM)",
        ]
    }
}
