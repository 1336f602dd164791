import Foundation
import GraftSupport
import Testing

@testable import GraftHost

/// Graft's modules use FoundationEssentials only, so the few path and text
/// helpers Foundation's `NSString` gave them are Graft's own: they must say
/// what `NSString` said for the paths Graft meets.
@Suite struct TextAndPathTests {
    @Test("natural order: numbers in names compare as numbers, the rest byte by byte, and the order is total")
    func naturalOrder() {
        let names = ["rating10", "rating2", "rating1", "a", "rating", "rating02", "b1c10", "b1c9", "b01", "rating2x", "10", "9"]
        let sorted = names.sorted { $0.precedesNaturally($1) }
        #expect(sorted == ["9", "10", "a", "b1c9", "b1c10", "b01", "rating", "rating1", "rating2", "rating2x", "rating02", "rating10"])
        for a in names {
            #expect(!a.precedesNaturally(a), "\(a) before itself")
            for b in names where a != b { #expect(a.precedesNaturally(b) != b.precedesNaturally(a), "\(a) and \(b)") }
        }
    }

    @Test("path components and folders, as NSString gave them")
    func componentsAndFolders() {
        for path in ["/a/b.so", "/a", "/", "b.so", "./a", "a/b/", "/x//y/z", "../a/b", "~/q"] {
            #expect(FilePaths.lastComponent(of: path) == (path as NSString).lastPathComponent, "\(path)")
        }
        for (path, folder) in [("/a/b.so", "/a"), ("/a", "/"), ("/", "/"), ("b.so", "."), ("a/b/", "a"), ("/x//y/z", "/x//y")] {
            #expect(FilePaths.folder(of: path) == folder, "\(path)")
        }
        #expect(FilePaths.joined("/a", "b") == "/a/b")
        #expect(FilePaths.joined("/a/", "b") == "/a/b")
    }

    @Test("standardized paths: ~, repeated slashes, . and .. by name in absolute paths")
    func standardized() {
        let cases: [(String, String)] = [
            ("/x//y/./z/../w/", "/x/y/w"), ("/..", "/"), ("/tmp/../..", "/"), ("~/q", "/home/u/q"), ("~", "/home/u"),
            ("/a/b", "/a/b"), ("a/./b", "a/b"), ("./a", "./a"), ("../a/b", "../a/b"), ("a/../..", ".."), ("a/..", "."),
            ("libacme.so", "libacme.so"), ("", ""),
        ]
        for (path, expected) in cases {
            #expect(FilePaths.standardized(path, home: "/home/u") == expected, "\(path)")
        }
        // Absolute paths come out as NSString standardized them.
        for path in ["/x//y/./z/../w/", "/a/b", "/tmp/../.."] {
            #expect(FilePaths.standardized(path) == (path as NSString).standardizingPath, "\(path)")
        }
    }

    @Test("symlinks are resolved when the path exists; a missing path comes back standardized")
    func resolvingSymlinks() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graft-paths-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let real = FilePaths.resolvingSymlinks(folder)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/target"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "target")
        #expect(FilePaths.resolvingSymlinks(folder + "/link") == real + "/target")
        #expect(FilePaths.resolvingSymlinks("/no/such//file/../here") == "/no/such/here")
    }

    @Test("decimals, padding and trimming read as String(format:), padding(toLength:) and trimmingCharacters did")
    func text() {
        for (value, places) in [(12.345, 2), (0.005, 2), (-1.25, 1), (-0.04, 1), (1234567.891, 2), (1e300, 1), (3.0, 0), (0.1, 3), (99.995, 2)] {
            #expect(decimal(value, places: places) == String(format: "%.\(places)f", value), "\(value) \(places)")
        }
        #expect("#12".padded(toLength: 6) == "#12   ")
        #expect("abcdefgh".padded(toLength: 3) == "abc")
        for text in ["  12 ", "\t7\t", "\u{00A0}3\u{2003}", "x", "   ", "a b"] {
            #expect(text.trimmingSpaces == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    @Test("timestamps are ISO 8601 in UTC with milliseconds, and read back")
    func timestamps() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.1234)
        let text = Timestamp.string(from: date)
        #expect(text == "2026-11-18T11:06:40.123Z")
        let read = try #require(Timestamp.date(from: text))
        #expect(abs(read.timeIntervalSince1970 - 1_795_000_000.123) < 0.0005)
        #expect(Timestamp.date(from: "2026-11-18T11:06:40Z")?.timeIntervalSince1970 == 1_795_000_000)
        #expect(Timestamp.date(from: "yesterday") == nil)
        #expect(Timestamp.clock(from: date) == "11:06:40.123")
    }
}
