import ArgumentParser
import FoundationEssentials
import GraftCommandLine
import GraftHost
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

struct SDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Print what a plugin author needs to build against graft.h.",
        discussion: "cc -shared -fPIC -o libacme.so acme.c $(graft sdk --cflags)")

    @Flag(help: "Print the compiler flags (-I<folder of graft.h>).")
    var cflags = false

    @Flag(help: "Print the path of graft.h.")
    var header = false

    @Option(help: ArgumentHelp(
        "Write the Swift SDK (GraftKit as a package with no dependencies) into a folder, or refresh an earlier copy there.",
        valueName: "folder"))
    var swiftPackage: String?

    func run() throws {
        if let swiftPackage {
            let folder = FilePaths.standardized(swiftPackage)
            do throws(CommandLineError) { try SwiftSDK.write(to: folder) } catch { throw CommandFailure(error: error, json: false) }
            Output.line("Wrote Graft's Swift SDK \(GraftHost.version) to \(folder): depend on it with .package(path: \"\(swiftPackage)\")")
            return
        }
        guard let folder = GraftHeader.includeFolder() else {
            throw CommandFailure(
                error: .init(.pluginNotFound, "graft.h was not found; set GRAFT_INCLUDE_DIR to the folder that holds it."),
                json: false)
        }
        if header {
            Output.line(folder + "/graft.h")
        } else if cflags {
            Output.line("-I\(folder)")
        } else {
            Output.line("include folder: \(folder)")
            Output.line("cflags: -I\(folder)")
            Output.line("build a plugin: cc -shared -fPIC -std=c11 -o libacme.so acme.c -I\(folder)")
        }
    }
}
