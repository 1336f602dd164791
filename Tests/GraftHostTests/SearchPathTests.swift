import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

@Suite("Search path")
struct SearchPathTests {
    @Test("explicit folders first, then GRAFT_PLUGIN_PATH, then the default folders and the executable's folder")
    func order() {
        let path = SearchPath.standard(
            explicit: ["/opt/a"], environment: ["GRAFT_PLUGIN_PATH": "/opt/b:relative/c:/opt/d", "HOME": "/home/u"],
            executableFolder: "/opt/bin")
        // An executable in PREFIX/bin also finds PREFIX/lib/graft/plugins (an install's first-party plugins).
        #expect(
            path.folders == [
                "/opt/a", "/opt/b", "/opt/d", "/home/u/.local/lib/graft/plugins", "/usr/local/lib/graft/plugins",
                "/usr/lib/graft/plugins", "/opt/lib/graft/plugins", "/opt/bin",
            ])
        #expect(path.warnings.count == 1)
        #expect(path.warnings[0].contains("relative/c"))
        // A build folder is not a prefix; /usr/local/bin's plugins are listed once.
        let built = SearchPath.standard(environment: [:], executableFolder: "/src/.build/debug")
        #expect(built.folders == ["/usr/local/lib/graft/plugins", "/usr/lib/graft/plugins", "/src/.build/debug"])
        let system = SearchPath.standard(environment: [:], executableFolder: "/usr/local/bin")
        #expect(system.folders == ["/usr/local/lib/graft/plugins", "/usr/lib/graft/plugins", "/usr/local/bin"])
    }

    @Test("finds .so files in subfolders, each real file once, and survives symlink loops")
    func discovery() throws {
        let scratch = try Scratch()
        let nested = scratch.url.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Fixtures.build("good_echo", into: nested)
        try Fixtures.build("good_empty", into: scratch.url)
        try Data().write(to: scratch.file("notes.txt"))
        // A loop back to the root, and a second name for the same library.
        try FileManager.default.createSymbolicLink(atPath: nested.appendingPathComponent("loop").path, withDestinationPath: scratch.url.path)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("libalias.so").path, withDestinationPath: nested.appendingPathComponent("libgood_echo.so").path)

        let files = SearchPath(folders: [scratch.url.path]).pluginFiles()
        #expect(files.count == 2)
        #expect(files.contains { $0.hasSuffix("libgood_empty.so") })
        #expect(files.contains { $0.hasSuffix("libalias.so") || $0.hasSuffix("libgood_echo.so") })
    }

    @Test("a folder's files are taken in byte order, as ls sorts them in the C locale, whatever their length or bytes")
    func byteOrder() throws {
        let scratch = try Scratch()
        let names = ["libb.so", "liba.so", "liba1.so", "libA.so", "lib_.so", "libé.so", "lib.so", "lib-z.so"]
        for name in names { try Data("not a plugin".utf8).write(to: scratch.file(name)) }
        let found = SearchPath(folders: [scratch.url.path]).pluginFiles().map { String($0.split(separator: "/").last!) }
        #expect(found == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(found.first == "lib-z.so" && found.last == "libé.so", "\(found)")
        // Equal prefixes: the shorter first; empty names compare too.
        #expect(SearchPath.precedes(Array("ab".utf8), Array("abc".utf8)) && !SearchPath.precedes(Array("abc".utf8), Array("ab".utf8)))
        #expect(SearchPath.precedes([], [0]) && !SearchPath.precedes([], []) && !SearchPath.precedes([0xFF], [0x7F]))
    }
}
