import Foundation
import GraftTestSupport
import Testing

/// `Scripts/install.sh` as a plugin author uses it: install under a prefix,
/// build a C plugin with `pkg-config --cflags graft` alone, check it with the
/// installed `graft`, which also finds the installed first-party plugins;
/// then uninstall, leaving nothing behind.
@Suite(.timeLimit(.minutes(10)))
struct InstallTests {
    let script = Fixtures.root.appendingPathComponent("Scripts/install.sh")

    @Test("install.sh: graft on PATH, graft.h through pkg-config, plugins found; --uninstall removes it all")
    func installAndUninstall() throws {
        let scratch = try Scratch()
        let prefix = scratch.file("prefix")
        let installed = try runCommand(
            URL(fileURLWithPath: "/bin/bash"), [script.path, "--prefix", prefix.path, "--from", BuildProducts.folder.path],
            timeout: .seconds(120))
        #expect(installed.status == 0, "\(installed.stderr)")
        for file in ["bin/graft", "bin/graft-child", "bin/graft-workbench", "include/graft/graft.h",
                     "lib/pkgconfig/graft.pc", "lib/graft/plugins/libDatePicker.so", "lib/graft/plugins/libCheckout.so"] {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "\(file) was not installed")
        }
        // Plugin files must pass Graft's own trust rules: nobody else may write them.
        let mode = try FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent("lib/graft/plugins/libCheckout.so").path)[.posixPermissions] as? Int
        #expect(mode == 0o755)

        var environment = ProcessInfo.processInfo.environment
        environment["PKG_CONFIG_PATH"] = prefix.appendingPathComponent("lib/pkgconfig").path
        environment["PATH"] = prefix.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        environment["HOME"] = scratch.url.path
        environment["XDG_CACHE_HOME"] = scratch.file("cache").path
        environment["GRAFT_PLUGIN_PATH"] = nil
        let flags = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["pkg-config", "--cflags", "graft"], environment: environment, timeout: .seconds(30))
        #expect(flags.status == 0, "\(flags.stderr)")
        #expect(flags.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "-I\(prefix.path)/include/graft")

        // The build line of "Installing" in CommandLine.md, run in a folder of its own, with the plugin named as a bare file name.
        let article = try String(
            contentsOf: Fixtures.root.appendingPathComponent("Sources/GraftHost/Documentation.docc/CommandLine.md"), encoding: .utf8)
        let line = try #require(article.split(separator: "\n").first { $0.hasPrefix("cc $(pkg-config --cflags graft) ") })
        let work = scratch.file("acme")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.source("good_echo"), to: work.appendingPathComponent("acme.c"))
        let built = try runCommand(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(work.path)' && \(line)"],
            environment: environment, timeout: .seconds(120))
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
        #expect(built.stdout.contains("libacme.so: ok"))

        // The installed graft finds the installed plugins (PREFIX/lib/graft/plugins), with no --plugin-path.
        let listed = try runCommand(prefix.appendingPathComponent("bin/graft"), ["list", "--json"], environment: environment, timeout: .seconds(120))
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("date_picker"))
        #expect(listed.stdout.contains("\(prefix.path)/lib/graft/plugins/libDatePicker.so"))
        let sdk = try runCommand(prefix.appendingPathComponent("bin/graft"), ["sdk", "--cflags"], environment: environment, timeout: .seconds(30))
        #expect(sdk.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "-I\(prefix.path)/include/graft")

        let removed = try runCommand(URL(fileURLWithPath: "/bin/bash"), [script.path, "--prefix", prefix.path, "--uninstall"], timeout: .seconds(60))
        #expect(removed.status == 0, "\(removed.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix.path)?.allObjects.compactMap { $0 as? String }.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path, isDirectory: &isFolder) && !isFolder.boolValue
        }
        #expect(left == [], "left behind: \(left ?? [])")
    }

    @Test("install.sh: an unknown option, a missing build, nothing to uninstall: exit non-zero, saying why")
    func refusals() throws {
        let scratch = try Scratch()
        let unknown = try runCommand(URL(fileURLWithPath: "/bin/bash"), [script.path, "--prefx", "/tmp"], timeout: .seconds(30))
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--prefx"))
        let empty = scratch.file("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = try runCommand(
            URL(fileURLWithPath: "/bin/bash"), [script.path, "--prefix", scratch.file("p").path, "--from", empty.path], timeout: .seconds(30))
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("\(empty.path)/graft is missing"))
        let nothing = try runCommand(URL(fileURLWithPath: "/bin/bash"), [script.path, "--prefix", scratch.file("q").path, "--uninstall"], timeout: .seconds(30))
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("nothing to uninstall"))
    }
}
