import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

@Suite("Registry")
struct RegistryTests {
    @Test("version 1 answers the bare key; other versions are asked for by number")
    func resolveVersions() throws {
        let scratch = try Scratch()
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: Fixtures.build("good_two_versions", into: scratch.url).path)

        #expect(try host.resolve(ComponentReference(parsing: "multi")).contract.version == 1)
        #expect(try host.resolve(ComponentReference(parsing: "multi@2")).contract.inputs.map(\.key).contains("extra"))

        let mismatch = #expect(throws: GraftError.self) { try host.resolve(ComponentReference(parsing: "only_v2")) }
        #expect(mismatch?.code == .componentVersionMismatch)
        #expect(mismatch?.message.contains("2") == true)

        let missing = #expect(throws: GraftError.self) { try host.resolve(ComponentReference(parsing: "nope")) }
        #expect(missing?.code == .customComponentNotFound)
    }

    @Test("unregister by key+version")
    func unregister() throws {
        let scratch = try Scratch()
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: Fixtures.build("good_two_versions", into: scratch.url).path)
        #expect(host.registry.unregister(key: "multi", version: 1) != nil)
        let error = #expect(throws: GraftError.self) { try host.resolve(ComponentReference(key: "multi")) }
        #expect(error?.code == .componentVersionMismatch)
        #expect(try host.resolve(ComponentReference(key: "multi", version: 2)).contract.version == 2)
    }

    @Test("references parse KEY and KEY@VERSION and refuse the rest", arguments: ["", "Date", "a@0", "a@x", "a@", "a b"])
    func badReferences(text: String) {
        #expect(throws: GraftError.self) { try ComponentReference(parsing: text) }
    }

    @Test("lookups from many threads while components come and go never see a torn state")
    func concurrentLookups() async throws {
        let scratch = try Scratch()
        let host = inProcessHost(scratch.url)
        try host.load(pluginAt: Fixtures.build("good_two_versions", into: scratch.url).path)
        let multi = try host.resolve(ComponentReference(key: "multi", version: 2))
        let lookups = 20_000
        let found = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var found = 0
                    for _ in 0..<lookups where (try? host.resolve(ComponentReference(key: "multi"))) != nil { found += 1 }
                    return found
                }
            }
            group.addTask {
                for _ in 0..<2_000 {
                    host.registry.unregister(key: "multi", version: 2)
                    host.registry.restore(multi)
                }
                return nil
            }
            var found: [Int] = []
            for await count in group { if let count { found.append(count) } }
            return found
        }
        // Version 1 never left: every lookup of it, on every thread, found it.
        #expect(found == [Int](repeating: lookups, count: 4))
        #expect(try host.resolve(ComponentReference(key: "multi")).contract.version == 1)
    }
}
