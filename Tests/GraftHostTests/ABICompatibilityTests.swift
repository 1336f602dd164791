import FoundationEssentials
import GraftHost
import GraftTestSupport
import Testing

/// graft.h v1 is a promise to third parties: a plugin built against any
/// released header (kept in Tests/Fixtures/abi, as shipped) loads, renders,
/// validates and runs its actions in today's host, and what its minor
/// offered (interactions from 1.1, permissions from 1.2, stories from 1.3)
/// reaches the host, and nothing newer is read from it.
@Suite("ABI compatibility")
struct ABICompatibilityTests {
    /// The released minors; each header is Tests/Fixtures/abi/graft-1.N.h.
    static let released = [0, 1, 2, 3]

    @Test(
        "a plugin built against each released graft.h (1.0 to 1.3) loads, renders, validates and runs its action, in process and isolated",
        arguments: released, [Isolation.inProcess, .perPlugin])
    func builtAgainst(minor: Int, isolation: Isolation) throws {
        let scratch = try Scratch()
        let include = scratch.url.appendingPathComponent("include")
        try FileManager.default.createDirectory(at: include, withIntermediateDirectories: true)
        let header = Fixtures.root.appendingPathComponent("Tests/Fixtures/abi/graft-1.\(minor).h")
        try FileManager.default.copyItem(at: header, to: include.appendingPathComponent("graft.h"))
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("abi_compat", into: folder, flags: ["-Werror"], include: include)

        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path, isolation: isolation),
            logger: quietLogger)
        host.loadPlugins()
        #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
        let plugin = try #require(host.plugins.first { $0.id == "test.compat" })
        #expect(plugin.abi == ABIVersion(major: 1, minor: minor))

        let events = EventLog()
        let compat = try host.makeInstance(of: "compat", inputs: ["text": "hi"], onEvent: events.handler)
        #expect(try compat.render().text == "compat 1.\(minor): hi")
        #expect(compat.warnings.isEmpty, "\(compat.warnings)")

        #expect(try host.validate("compat_filled", value: "x").isValid)
        #expect(try !host.validate("compat_filled", value: "").isValid)
        #expect(try host.validate("compat_positive", value: 2).isValid)
        #expect(try !host.validate("compat_positive", value: -1).isValid)

        let acted = try host.invokeAction("compat_set", params: ["text": "set"])
        #expect(acted.ok, "\(acted.error ?? "")")
        #expect(acted.variables["compat"] == "set")

        // What each minor added, read only from a plugin that declares it.
        let contract = try host.resolve(ComponentReference(key: "compat")).contract
        #expect(contract.interactions.map(\.name) == (minor >= 1 ? ["poke"] : []))
        if minor >= 1 {
            #expect(compat.interact("poke"))
            #expect(events.all.map(\.event) == ["poked"])
        }
        #expect(plugin.permissions.count == (minor >= 2 ? 1 : 0), "\(plugin.permissions)")
        #expect(contract.stories.map(\.name) == (minor >= 3 ? ["short"] : []))
    }

    @Test("the kept headers are the released ones: each says its own minor, and today's graft.h is the newest")
    func headers() throws {
        for minor in Self.released {
            let name = "graft-1.\(minor).h"
            let text = try String(contentsOf: Fixtures.root.appendingPathComponent("Tests/Fixtures/abi/\(name)"), encoding: .utf8)
            #expect(text.contains("#define GRAFT_ABI_MINOR \(minor)\n"), "\(name)")
        }
        #expect(ABIVersion.host.minor == Self.released.last, "a new minor adds its released header here")
    }
}
