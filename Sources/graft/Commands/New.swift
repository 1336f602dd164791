import ArgumentParser
import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// `graft new c|swift NAME`: a plugin project that builds with one command,
/// with a component, a validator, an action and a test, which `graft check`
/// passes as generated.
struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a plugin project: a component, a validator, an action and a test, ready to build.",
        discussion: """
            graft new c NAME       NAME/ with NAME.c, test_plugin.c and a Makefile (graft.h through pkg-config): make test
            graft new c NAME --wasm   the same, and the Makefile also builds and tests build/NAME.wasm
            graft new swift NAME   NAME/ with a Package.swift and GraftKit/, the Swift SDK: swift build && swift test
            The component is NAME@1, the validator NAME_max_length, the action NAME_greet.
            """)

    enum Language: String, ExpressibleByArgument, CaseIterable {
        case c, swift
    }

    @Argument(help: "The language: c or swift.")
    var language: Language

    @Argument(help: ArgumentHelp("The plugin's name: lowercase letters, digits and _ (it is also the component key).", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("The folder to create (default: ./NAME).", valueName: "folder"))
    var output: String?

    @Option(help: ArgumentHelp("The plugin id, reverse DNS (default: com.example.NAME).", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp(
        "Swift only: Graft's package (a folder or a git URL) or a copy of its Swift SDK (default: a new copy in the project, GraftKit/).",
        valueName: "path-or-url"))
    var graft: String?

    @Flag(help: "C only: the Makefile also builds the plugin as WebAssembly (build/NAME.wasm, one file for every machine) and tests it.")
    var wasm = false

    @Flag(help: "Print JSON: the folder and the files written.")
    var json = false

    func validate() throws {
        if let problem = PluginName.problem(with: name) { throw ValidationError("The name \(problem).") }
        if let id, id.isEmpty || !id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }) {
            throw ValidationError("The id '\(id)' should be reverse DNS: a-z, 0-9, '.', '_' and '-', for example com.acme.widgets.")
        }
        if language == .c, graft != nil { throw ValidationError("--graft is for Swift projects; a C project finds graft.h through pkg-config.") }
        if language == .swift, wasm { throw ValidationError("--wasm is for C projects: no Swift SDK for WASI is available here (docs/WasmABI.md).") }
    }

    func run() throws {
        let pluginName = PluginName(key: name)
        let pluginID = id ?? "com.example.\(String(name.map { $0 == "_" ? "-" : $0 }))"
        let folder = FilePaths.standardized(output ?? name)
        try requireEmpty(folder)
        let files: [(path: String, text: String)]
        var copiesSDK = false
        switch language {
        case .c:
            files = CPluginTemplate.files(for: pluginName, id: pluginID, wasm: wasm)
        case .swift:
            let dependency = try graftDependency()
            files = SwiftPluginTemplate.files(for: pluginName, id: pluginID, dependency: dependency.line, packageName: dependency.package, sdk: dependency.sdk)
            copiesSDK = dependency.sdk
            if dependency.sdk {
                do throws(CommandLineError) { try SwiftSDK.write(to: folder + "/GraftKit") } catch { throw CommandFailure(error: error, json: json) }
            }
        }
        for file in files {
            let path = folder + "/" + file.path
            do {
                try FileManager.default.createDirectory(atPath: FilePaths.folder(of: path), withIntermediateDirectories: true)
                let text = file.text.hasSuffix("\n") ? file.text : file.text + "\n"
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure(error: CommandLineError(.projectExists, "\(path) could not be written: \(error).", path: path), json: json)
            }
        }
        let written = files.map(\.path) + (copiesSDK ? ["GraftKit/"] : [])
        if json {
            Output.json(.object(["folder": .string(folder), "files": .list(written.map { .string($0) })]))
            return
        }
        Output.line("Created \(folder) (\(language.rawValue) plugin \(pluginID)):")
        for path in written where !path.hasPrefix(".") { Output.line("  \(path)\(path == "GraftKit/" ? "  (the Swift SDK, Graft \(GraftHost.version))" : "")") }
        let shown = output ?? name
        switch language {
        case .c:
            Output.line("Next: cd \(shown) && make test && graft try \(name) --plugin-path build --interact tap")
        case .swift:
            let library = ".build/debug/lib\(pluginName.module).so"
            Output.line("Next: cd \(shown) && swift build && swift test && graft try \(name) --plugin-path \(library) --interact tap")
        }
    }

    /// A project is never written over: the folder must not exist, or be empty.
    private func requireEmpty(_ folder: String) throws {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            if FileManager.default.fileExists(atPath: folder) {
                throw CommandFailure(error: CommandLineError(.projectExists, "\(folder) exists and is not a folder; choose another --output.", path: folder), json: json)
            }
            return
        }
        guard entries.isEmpty else {
            throw CommandFailure(
                error: CommandLineError(.projectExists, "\(folder) already exists and is not empty; nothing was written (choose another NAME or --output).", path: folder),
                json: json)
        }
    }

    /// The `.package(…)` line for GraftKit and the name its products go by. With no `--graft`, the project gets a copy
    /// of the Swift SDK (GraftKit/): nothing to resolve, and nothing that goes when this Graft checkout goes. Graft by
    /// URL or path comes with no traits, so that SwiftPM resolves none of what only Graft's tools need.
    private func graftDependency() throws -> (line: String, package: String, sdk: Bool) {
        guard let graft else { return (".package(path: \"GraftKit\")", "GraftKit", true) }
        if graft.contains("://") || graft.hasPrefix("git@") {
            var identity = FilePaths.lastComponent(of: graft)
            if identity.hasSuffix(".git") { identity.removeLast(4) }
            return (".package(url: \"\(graft)\", from: \"\(GraftHost.version)\", traits: [])", identity.lowercased(), false)
        }
        let root = FilePaths.standardized(graft)
        guard FileManager.default.fileExists(atPath: root + "/Package.swift") else {
            throw CommandFailure(
                error: CommandLineError(.graftPackageNotFound, "--graft \(root): no Package.swift there; give the folder of Graft's package.", path: root),
                json: json)
        }
        // A copy of the SDK (graft sdk --swift-package) declares no traits, and SwiftPM refuses `traits: []` for it.
        if SwiftSDK.isCopy(root) { return (".package(name: \"GraftKit\", path: \"\(root)\")", "GraftKit", false) }
        return (".package(name: \"Graft\", path: \"\(root)\", traits: [])", "Graft", false)
    }
}
