import Foundation
import GraftHost
import GraftTestSupport
import Testing

/// Names belong to plugins: two vendors' plugins that declare the same
/// component, validator and action load side by side, each answering its
/// qualified names; one owns each bare name, and the other's declaration is
/// reported as a clash of that entry, never a refusal of its plugin.
@Suite("Names owned by plugin id")
struct NameOwnershipTests {
    /// `test.echo` (renders "echo:…") and `test.echo-b` (renders "b:…"): the
    /// same component `echo@1`, validator `nonempty` and action
    /// `echo_action`; `is_even` is A's and `is_even_b` B's alone.
    static func twoVendors(_ scratch: borrowing Scratch) throws -> (folder: URL, a: URL, b: URL) {
        let folder = scratch.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let a = try Fixtures.build("good_echo", into: folder)
        let b = try Fixtures.build(
            "good_echo", into: folder,
            defines: ["ECHO_PLUGIN_ID": "\"test.echo-b\"", "ECHO_PREFIX": "\"b:\"", "ECHO_NATIVE_NAME": "\"is_even_b\""],
            outputName: "libgood_echo_b.so")
        return (folder, a, b)
    }

    static func host(_ folder: URL, _ scratch: borrowing Scratch, isolation: Isolation, preferred: [String: String] = [:]) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), loadsFromCopies: true, cacheFolder: scratch.file("cache").path,
                isolation: isolation, preferredPlugins: preferred),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    static func rendered(_ host: GraftHost, _ reference: ComponentReference) throws -> String {
        let instance = try host.makeInstance(of: reference, inputs: ["text": "hi"])
        defer { instance.close() }
        return try instance.render().text
    }

    @Test("a clash keeps both plugins, each answering its qualified names, and is reported as a failure of the entry", arguments: [
        Isolation.perPlugin, .inProcess,
    ])
    func sideBySide(isolation: Isolation) throws {
        let scratch = try Scratch()
        let (folder, a, b) = try Self.twoVendors(scratch)
        // Twice: a scan, then the registry cache's quick path.
        for _ in 0..<2 {
            let host = Self.host(folder, scratch, isolation: isolation)
            #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.echo-b"])
            // The first registered owns the bare names; each answers its own qualified ones.
            #expect(try Self.rendered(host, "echo").hasPrefix("echo:"))
            #expect(try Self.rendered(host, "test.echo/echo").hasPrefix("echo:"))
            #expect(try Self.rendered(host, "test.echo-b/echo@1").hasPrefix("b:"))
            // The bare name warns on the instance it made (ambiguous_name, both qualified names); a qualified one does not.
            let bare = try host.makeInstance(of: "echo", inputs: ["text": "hi"])
            #expect(bare.warnings.map(\.code) == [.ambiguousName])
            #expect(bare.warnings.first?.message.contains("'test.echo-b/echo@1'") == true, "\(bare.warnings)")
            bare.close()
            let named = try host.makeInstance(of: "test.echo/echo", inputs: ["text": "hi"])
            #expect(named.warnings.isEmpty)
            named.close()
            #expect(try host.validator("nonempty").pluginID == "test.echo")
            #expect(try host.validator("test.echo-b/nonempty").pluginID == "test.echo-b")
            #expect(try host.validate("test.echo-b/nonempty", value: "").isValid == false)
            // B's own entries keep their bare names.
            #expect(try host.validator("is_even_b").pluginID == "test.echo-b")
            #expect(try host.validate("is_even_b", value: 4).isValid)
            #expect(try host.invokeAction("echo_action", params: ["text": "a"]).ok)
            #expect(try host.invokeAction("test.echo-b/echo_action", params: ["text": "b"]).variables == ["echoed": "b"])
            // Listed once each, with their plugin.
            #expect(host.components.filter { $0.contract.key == "echo" }.map(\.pluginID) == ["test.echo", "test.echo-b"])
            #expect(host.validators.filter { $0.contract.name == "nonempty" }.map(\.pluginID) == ["test.echo", "test.echo-b"])
            // Each clash is a failure of B's entry, naming both plugins.
            let clashes = host.failures.filter { $0.path == b.path }
            #expect(Set(clashes.map(\.error.code)) == [.duplicateComponent, .duplicateValidator, .duplicateAction], "\(host.failures)")
            #expect(clashes.map(\.error.key).sorted { ($0 ?? "") < ($1 ?? "") } == ["echo", "echo_action", "nonempty"])
            #expect(clashes.allSatisfy { $0.error.message.contains("'test.echo'") && $0.error.message.contains("'test.echo-b/") })
            #expect(!host.failures.contains { $0.path == a.path })
        }
    }

    @Test("the plugin a host prefers answers the bare name, whatever the load order")
    func preferred() throws {
        let scratch = try Scratch()
        let (folder, a, _) = try Self.twoVendors(scratch)
        let host = Self.host(folder, scratch, isolation: .perPlugin, preferred: ["echo": "test.echo-b", "nonempty@1": "test.echo-b"])
        #expect(try Self.rendered(host, "echo").hasPrefix("b:"))
        // A preference settles the bare name: no ambiguous_name.
        let settled = try host.makeInstance(of: "echo", inputs: ["text": "hi"])
        #expect(settled.warnings.isEmpty, "\(settled.warnings)")
        settled.close()
        #expect(try host.validator("nonempty").pluginID == "test.echo-b")
        #expect(try host.validator("test.echo/nonempty").pluginID == "test.echo")
        // Not preferred: the first registered keeps the action.
        #expect(try host.actions.first { $0.contract.key == "echo_action" }?.pluginID != nil)
        #expect(Set(host.failures.filter { $0.path == a.path }.map(\.error.key)) == ["echo", "nonempty"])
    }

    @Test("a preferredPlugins entry that is not a bare name and a plugin id is ignored with invalid_config naming it")
    func badPreference() throws {
        let scratch = try Scratch()
        let (folder, _, _) = try Self.twoVendors(scratch)
        let log = CapturedLog()
        let host = GraftHost(
            configuration: GraftConfiguration(
                searchPath: SearchPath(folders: [folder.path]), cacheFolder: scratch.file("cache").path, isolation: .inProcess,
                preferredPlugins: ["test.echo/echo": "test.echo-b", "echo": "not an id", "nonempty": "test.echo-b"]),
            logger: log.logger)
        host.loadPlugins()
        let warnings = log.all.filter { $0.level == .warning && $0.message.hasPrefix("invalid_config: preferredPlugins:") }
        #expect(warnings.count == 2, "\(log.all.map(\.message))")
        #expect(warnings.contains { $0.message.contains("'test.echo/echo'") } && warnings.contains { $0.message.contains("'not an id'") })
        // The bad ones change nothing; the good one still applies.
        #expect(try Self.rendered(host, "echo").hasPrefix("echo:"))
        #expect(try host.validator("nonempty").pluginID == "test.echo-b")
    }

    @Test("when the owner of a bare name goes, the next plugin that declares it answers it")
    func ownerGoes() throws {
        let scratch = try Scratch()
        let (folder, a, _) = try Self.twoVendors(scratch)
        let host = Self.host(folder, scratch, isolation: .inProcess)
        try FileManager.default.removeItem(at: a)
        guard case .removed = host.reload(pluginAt: a.path).outcome else {
            Issue.record("the removed file was not removed from the host")
            return
        }
        #expect(try Self.rendered(host, "echo").hasPrefix("b:"))
        #expect(try host.validator("nonempty").pluginID == "test.echo-b")
        #expect(host.failures.isEmpty, "\(host.failures)")
        #expect(throws: GraftError.self) { try host.validator("is_even") }
    }

    @Test("lookups from many threads while the owner of a bare name comes and goes always find a provider")
    func ownerChurn() async throws {
        let scratch = try Scratch()
        let (folder, a, _) = try Self.twoVendors(scratch)
        let host = Self.host(folder, scratch, isolation: .inProcess)
        let saved = scratch.file("saved.so")
        try FileManager.default.copyItem(at: a, to: saved)
        let lookups = 5_000
        let found = await withTaskGroup(of: Int?.self) { group in
            for name in ["echo", "test.echo-b/echo", "nonempty"] {
                group.addTask {
                    // Blocking work, off the cooperative threads (see `offPool`).
                    (try? await offPool {
                    var found = 0
                    for _ in 0..<lookups {
                        if name == "nonempty" {
                            if (try? host.validator(name)) != nil { found += 1 }
                        } else if (try? host.resolve(ComponentReference(parsing: name))) != nil {
                            found += 1
                        }
                    }
                    return found
                    }) ?? -1
                }
            }
            group.addTask {
                _ = try? await offPool {
                    for _ in 0..<40 {
                        try? FileManager.default.removeItem(at: a)
                        _ = host.reload(pluginAt: a.path)
                        try? FileManager.default.copyItem(at: saved, to: a)
                        _ = host.reload(pluginAt: a.path)
                    }
                }
                return nil
            }
            var found: [Int] = []
            for await count in group { if let count { found.append(count) } }
            return found
        }
        #expect(found == [lookups, lookups, lookups])
        #expect(Set(host.plugins.map(\.id)) == ["test.echo", "test.echo-b"])
    }

    @Test("names parse bare or qualified by a plugin id, and refuse the rest", arguments: [
        ("echo", ComponentReference(key: "echo")), ("echo@2", ComponentReference(key: "echo", version: 2)),
        ("test.echo-b/echo", ComponentReference(key: "echo", plugin: "test.echo-b")),
        ("Com.Acme_1/x.y-z@3", ComponentReference(key: "x.y-z", version: 3, plugin: "Com.Acme_1")),
    ])
    func parsing(text: String, expected: ComponentReference) throws {
        #expect(try ComponentReference(parsing: text) == expected)
        #expect(try ComponentReference(parsing: expected.description) == expected)
    }

    @Test("malformed qualified names are refused with invalid_reference", arguments: ["/echo", "a b/echo", "test.echo/", "a/b/c"])
    func badQualified(text: String) {
        let error = #expect(throws: GraftError.self) { try ComponentReference(parsing: text) }
        #expect(error?.code == .invalidReference)
    }
}
