import Foundation

extension Fixtures {
    /// `Tests/Fixtures/wasm`, where the WebAssembly fixtures' sources live.
    public static var wasmSourceFolder: URL {
        root.appendingPathComponent("Tests/Fixtures/wasm", isDirectory: true)
    }

    /// The C compiler that targets wasm32-wasi: `GRAFT_WASM_CC`, else
    /// Debian's clang-14 with its wasi-libc (Scripts/prerequisites.sh
    /// installs both; the Swift toolchain's clang lacks WASI's runtime).
    public static var wasmCompiler: String {
        ProcessInfo.processInfo.environment["GRAFT_WASM_CC"] ?? "clang-14"
    }

    /// The Checkout plugin's sources, which some fixtures build a part of.
    public static var checkoutFolder: URL { root.appendingPathComponent("Plugins/Checkout", isDirectory: true) }

    /// graft.h plugins built as WebAssembly compile this beside their own files.
    public static var wasmBridge: URL { includeFolder.appendingPathComponent("graft_wasm_bridge.c") }

    /// Compiles `Tests/Fixtures/wasm/<name>.c` (and `sources`, with `flags`)
    /// for wasm32-wasi (a reactor module) into `folder` as `<name>.wasm`, or
    /// `outputName`; moved into place with `rename(2)`, like `build`.
    @discardableResult
    public static func buildWasm(
        _ name: String, into folder: URL, defines: [String: String] = [:], outputName: String? = nil, sources: [URL] = [],
        flags: [String] = []
    ) throws -> URL {
        let output = folder.appendingPathComponent(outputName ?? "\(name).wasm")
        let arguments = [wasmCompiler, "--target=wasm32-wasi", "-mexec-model=reactor", "-O2", "-Wall", "-I", includeFolder.path]
        return try compile(name, arguments, defines: defines, sources: sources, flags: flags, to: output)
    }

    /// Compiles `Tests/Fixtures/wasm/<name>.c` and `sources` with `cc` into a
    /// shared library (the same sources a `.wasm` fixture is built from).
    @discardableResult
    public static func buildNative(_ name: String, into folder: URL, sources: [URL] = [], flags: [String] = []) throws -> URL {
        let arguments = ["cc", "-shared", "-fPIC", "-O2", "-Wall", "-I", includeFolder.path]
        return try compile(name, arguments, defines: [:], sources: sources, flags: flags, to: folder.appendingPathComponent("lib\(name).so"))
    }

    private static func compile(
        _ name: String, _ command: [String], defines: [String: String], sources: [URL], flags: [String], to output: URL
    ) throws -> URL {
        let source = wasmSourceFolder.appendingPathComponent("\(name).c")
        let folder = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = folder.appendingPathComponent(".\(output.lastPathComponent).\(UUID().uuidString).partial")
        var arguments = command + flags
        arguments += defines.sorted { $0.key < $1.key }.map { "-D\($0.key)=\($0.value)" }
        arguments += [source.path] + sources.map(\.path) + ["-o", partial.path]
        let (status, log) = try run(arguments)
        guard status == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw BuildError(description: "compiling fixture '\(name)' failed (for wasm: is \(wasmCompiler) with wasi-libc installed? Scripts/prerequisites.sh)\ncommand: \(arguments.joined(separator: " "))\n\(log)")
        }
        chmod(partial.path, 0o644)
        guard rename(partial.path, output.path) == 0 else {
            throw BuildError(description: "could not move \(partial.path) to \(output.path): \(String(cString: strerror(errno)))")
        }
        return output
    }
}
