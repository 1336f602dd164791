import ArgumentParser
import GraftCommandLine
import GraftTestSupport
import Testing

@testable import graft

/// `graft list` reads its plain forms without ArgumentParser (`ListRequest(quick:)`).
/// ArgumentParser stays the parser of record: whatever the quick path
/// accepts, it must read exactly as ArgumentParser does, and whatever it
/// does not know it must leave to ArgumentParser.
@Suite("graft list: the quick path reads arguments as ArgumentParser does")
struct ListQuickPathTests {
    static let flags = [
        "--json", "--only-plugin-path", "--no-cache", "--quarantined", "--allow-untrusted", "--no-scanner", "--locked",
        "--in-process", "--require-signatures",
    ]
    static let paths: [[String]] = [
        ["--plugin-path", "/a"], ["--plugin-path=/b"], ["--plugin-path=/c=d"], ["--plugin-path", "dir with space"],
        ["--plugin-path", "ünïcode/plugins"], ["--plugin-path", "relative/x.so"], ["--plugin-path", "list"],
        ["--publisher", "com.acme.=acme.pub"], ["--publisher=dev.=/keys/dev.pub"], ["--revoked-key", "B176A21430B5B962"],
        ["--revoked-key=0123456789ABCDEF"],
    ]
    /// Forms the quick path must leave to ArgumentParser: help, options it does
    /// not read, values that look like options, repeats, mistakes.
    static let others: [[String]] = [
        ["--help"], ["-h"], ["help"], ["--json=true"], ["--plugin-path"], ["--plugin-path", "-x"], ["--plugin-path="],
        ["--plugin-path", "--json"], ["--"], ["extra"], ["-j"], ["--JSON"], ["--version"], ["--log-level", "debug"],
        ["--isolation", "shared"], ["--scan-timeout", "3"], ["--lock-file", "x.lock"], ["--json", "--json"],
        ["--memory-limit", "64"], ["--call-timeout", "1"], ["--quarantined", "--quarantined"], ["--publisher"],
        ["--publisher", "--json"], ["--revoked-key="], ["--require-signatures", "--require-signatures"],
    ]

    /// What ArgumentParser makes of `graft ARGUMENTS`, as a list request; nil when it refuses or it is not `list`.
    static func parsed(_ arguments: [String]) -> ListRequest? {
        guard let list = (try? Graft.parseAsRoot(arguments)) as? List else { return nil }
        return ListRequest(quarantined: list.quarantined, settings: list.options.settings)
    }

    static func check(_ arguments: [String], mustBeQuick: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let quick = ListRequest(quick: arguments)
        if let quick {
            let parsed = parsed(arguments)
            #expect(parsed != nil, "ArgumentParser refuses \(arguments), which the quick path took", sourceLocation: sourceLocation)
            #expect(parsed == quick, "\(arguments)", sourceLocation: sourceLocation)
        }
        if mustBeQuick {
            #expect(quick != nil, "\(arguments) should not need ArgumentParser", sourceLocation: sourceLocation)
        }
    }

    @Test("plain `graft list` and each flag alone: read here, the same as ArgumentParser reads them, defaults included")
    func singleFlags() {
        Self.check(["list"], mustBeQuick: true)
        #expect(ListRequest(quick: ["list"]) == ListRequest())
        for flag in Self.flags { Self.check(["list", flag], mustBeQuick: true) }
        for path in Self.paths { Self.check(["list"] + path, mustBeQuick: true) }
    }

    @Test("every flag with every --plugin-path form, in both orders, and all flags at once with repeated paths")
    func flagsWithPaths() {
        for flag in Self.flags {
            for path in Self.paths {
                Self.check(["list", flag] + path, mustBeQuick: true)
                Self.check(["list"] + path + [flag], mustBeQuick: true)
            }
        }
        Self.check(["list"] + Self.flags + Self.paths.flatMap { $0 }, mustBeQuick: true)
        #expect(ListRequest(quick: ["list", "--plugin-path", "/a", "--plugin-path=/b"])?.settings.pluginPaths == ["/a", "/b"])
    }

    @Test("forms it does not read go to ArgumentParser, alone and mixed with plain ones")
    func othersFallBack() {
        for other in Self.others {
            #expect(ListRequest(quick: ["list"] + other) == nil, "\(other)")
            #expect(ListRequest(quick: ["list", "--json"] + other + ["--plugin-path", "/a"]) == nil, "\(other)")
        }
        #expect(ListRequest(quick: []) == nil)
        #expect(ListRequest(quick: ["inspect", "--json"]) == nil)
        #expect(ListRequest(quick: ["--json", "list"]) == nil)
    }

    @Test("400 seeded random mixes of flags, paths and other forms: whatever is read quickly is read as ArgumentParser reads it")
    func randomMixes() {
        var random = SeededGenerator(seed: 0x6772_6166_74)
        let pieces = Self.flags.map { [$0] } + Self.paths + Self.others
        var quickCount = 0
        for _ in 0..<400 {
            var arguments = ["list"]
            for _ in 0..<Int(random.next() % 6) {
                arguments += pieces[Int(random.next() % UInt64(pieces.count))]
            }
            if ListRequest(quick: arguments) != nil { quickCount += 1 }
            Self.check(arguments, mustBeQuick: false)
        }
        // The mix is not all fallbacks: the comparison above ran on quick reads too.
        #expect(quickCount > 40)
    }
}
