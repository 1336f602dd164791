import Foundation
import GraftTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A Swift plugin as third parties write them: on Foundation (formatters
/// with ICU's locale data, a file written atomically, the CPU count) and a
/// third-party package (swift-collections), made with `graft new swift`.
/// It renders, validates and acts under the refuse-by-default sandbox, as
/// root and as nobody, with nothing refused and the default memory limit.
@Suite(.timeLimit(.minutes(10)))
struct FoundationPluginTests {
    @Test("a Swift plugin on Foundation and swift-collections works in the sandbox with nothing refused, as root and as nobody")
    func foundationPlugin() throws {
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o755)
        let created = try NewPluginTests.shell("graft new swift almanac", in: scratch.url)
        #expect(created.status == 0, "\(created.stderr)")
        let project = scratch.file("almanac")
        let fixture = Fixtures.root.appendingPathComponent("Tests/Fixtures/swift-plugins/almanac")
        for file in ["AlmanacPlugin.swift", "AlmanacDay.swift"] {
            let target = project.appendingPathComponent("Sources/Almanac/\(file)")
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(file), to: target)
        }
        let manifest = project.appendingPathComponent("Package.swift")
        var package = try String(contentsOf: manifest, encoding: .utf8)
        package = package.replacingOccurrences(
            of: ".package(path: \"GraftKit\"),",
            with: ".package(path: \"GraftKit\"),\n        .package(url: \"https://github.com/apple/swift-collections\", from: \"1.6.0\"),")
        package = package.replacingOccurrences(
            of: "dependencies: [.product(name: \"GraftKit\", package: \"GraftKit\")],\n            // Export",
            with: "dependencies: [\n                .product(name: \"GraftKit\", package: \"GraftKit\"),\n                .product(name: \"OrderedCollections\", package: \"swift-collections\"),\n            ],\n            // Export")
        #expect(package.contains("OrderedCollections"))
        try package.write(to: manifest, atomically: true, encoding: .utf8)
        let built = try NewPluginTests.shell("swift build", in: project, timeout: .seconds(540))
        try #require(built.status == 0, "\(built.stdout.suffix(3000))\(built.stderr.suffix(3000))")
        let library = project.appendingPathComponent(".build/debug/libAlmanac.so").path
        chmod(project.path, 0o755)

        for prefix in [[], geteuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env", "env", "PATH=\(NewPluginTests.environment["PATH"] ?? "/usr/bin:/bin")"] : nil].compactMap({ $0 }) {
            let command = (prefix + ["graft", "try", "almanac_day", "--plugin-path", library, "--no-cache"]).map { "'\($0)'" }.joined(separator: " ")
            let tried = try NewPluginTests.shell(command, in: scratch.url, timeout: .seconds(120))
            #expect(tried.status == 0, "\(prefix): \(tried.stderr)")
            // The currency comes after a no-break space, as ICU writes it.
            for line in ["day=samedi 28 novembre 2026", "weekday=7", "price=1.234,50", "€", #"json={"uuid":36}"#, "file=kept", "processors=some"] {
                #expect(tried.stdout.contains(line), "\(prefix): \(line) is missing from \(tried.stdout)")
            }
            #expect(!tried.stdout.contains("sandbox_denied") && !tried.stderr.contains("sandbox_denied"), "\(prefix): \(tried.stdout)\(tried.stderr)")
            let validated = try NewPluginTests.shell(
                (prefix + ["graft", "validate", "almanac_max_length", "hello", "3", "--plugin-path", library, "--no-cache"]).map { "'\($0)'" }.joined(separator: " "),
                in: scratch.url, timeout: .seconds(120))
            #expect(validated.status == 1 && validated.stdout.contains("at most 3 characters"), "\(prefix): \(validated.stdout)\(validated.stderr)")
        }
    }
}
