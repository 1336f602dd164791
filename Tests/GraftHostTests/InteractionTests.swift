import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// ABI 1.1: components declare the interactions `interact` answers. Plugins
/// built against 1.0 keep loading, and the host never reads the 1.1 fields
/// from them.
@Suite("Declared interactions (ABI 1.1)")
struct InteractionTests {
    static func host(_ folder: URL, cache: URL, isolation: Isolation = .inProcess) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: cache.path, isolation: isolation),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    @Test("a component's declared interactions reach its contract, also from the registry cache")
    func declared() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_widget", into: folder)
        let expected = [InteractionSpec(name: "tap", description: "tap the widget: emits `tapped`")]
        for round in ["scanned", "from the cache"] {
            let host = Self.host(folder, cache: scratch.file("cache"))
            #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
            let contract = try host.resolve(ComponentReference(key: "widget")).contract
            #expect(contract.interactions == expected, "\(round)")
            #expect(host.plugins.first?.abi == ABIVersion.host)
        }
    }

    @Test("an undeclared name is forwarded with unknown_interaction and the closest declared one; a refused declared one is interaction_refused", arguments: [Isolation.inProcess, .perPlugin])
    func warnings(isolation: Isolation) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_widget", into: folder)
        let host = Self.host(folder, cache: scratch.file("cache"), isolation: isolation)
        let widget = try host.makeInstance(of: "widget", inputs: ["title": "t", "count": 1, "on": true, "tags": []])
        #expect(widget.interact("tap"))
        #expect(widget.takeWarnings().isEmpty)
        #expect(!widget.interact("tapp"))
        let unknown = widget.takeWarnings()
        #expect(unknown.map(\.code) == [.unknownInteraction], "one warning, not one from the child and one from the host")
        #expect(unknown.first?.message.contains("Did you mean 'tap'?") == true)

        let refusing = scratch.url.appendingPathComponent("refusing")
        try Fixtures.build("good_widget", into: refusing, defines: ["WIDGET_REFUSES_TAP": "1"])
        let other = Self.host(refusing, cache: scratch.file("cache-2"), isolation: isolation)
        let refused = try other.makeInstance(of: "widget", inputs: ["title": "t", "count": 1, "on": true, "tags": []])
        #expect(!refused.interact("tap"))
        #expect(refused.takeWarnings().map(\.code) == [.interactionRefused])

        // Drift is forwarded with a warning: an undeclared name the plugin answers anyway still warns, once.
        let lenient = scratch.url.appendingPathComponent("lenient")
        try Fixtures.build("good_widget", into: lenient, defines: ["WIDGET_ANSWERS_ANY": "1"])
        let third = Self.host(lenient, cache: scratch.file("cache-3"), isolation: isolation)
        let answering = try third.makeInstance(of: "widget", inputs: ["title": "t", "count": 1, "on": true, "tags": []])
        #expect(answering.interact("wave"))
        let forwarded = answering.takeWarnings()
        #expect(forwarded.map(\.code) == [.unknownInteraction], "\(forwarded)")
        #expect(forwarded.first?.message.contains("answered it anyway") == true, "\(forwarded)")
        #expect(answering.interact("tap"))
        #expect(answering.takeWarnings().isEmpty)
    }

    @Test("a component that declares none (any 1.0 plugin) gets no warning for a name it refuses")
    func undeclared() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_echo", into: folder)
        let host = Self.host(folder, cache: scratch.file("cache"))
        let echo = try host.makeInstance(of: "echo", inputs: ["text": "x"])
        #expect(!echo.interact("no_such_action"))
        #expect(echo.warnings.isEmpty)
    }

    @Test("a 1.0 plugin loads and works: the host reads its descriptor only up to where 1.0 ends (an unreadable page follows)", arguments: [Isolation.inProcess, .perPlugin])
    func abi10(isolation: Isolation) throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("good_abi10", into: folder)
        let host = Self.host(folder, cache: scratch.file("cache"), isolation: isolation)
        #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
        #expect(host.plugins.first?.abi == ABIVersion(major: 1, minor: 0))
        let registered = try host.resolve(ComponentReference(key: "old_echo"))
        #expect(registered.contract.interactions.isEmpty)
        let log = EventLog()
        let echo = try host.makeInstance(of: "old_echo", inputs: ["text": "hi"], onEvent: log.handler)
        #expect(try echo.render().text == "old:echo")
        #expect(echo.interact("say"))
        #expect(log.all.map(\.event) == ["said"])

        // The positive control: the same build declaring 1.1 is read past its end, and the scanner child dies of it.
        let source = try String(contentsOf: Fixtures.source("good_abi10"), encoding: .utf8)
        #expect(source.contains(".abi = {1, 0}"))
        let control = scratch.url.appendingPathComponent("control")
        try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
        let file = control.appendingPathComponent("abi11.c")
        try source.replacingOccurrences(of: ".abi = {1, 0}", with: ".abi = {1, 1}").write(to: file, atomically: true, encoding: .utf8)
        let library = control.appendingPathComponent("libabi11.so")
        let compiled = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["cc", "-shared", "-fPIC", "-std=c11", "-I", Fixtures.includeFolder.path, "-o", library.path, file.path], timeout: .seconds(60))
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let crashed = Self.host(control, cache: scratch.file("cache-control"), isolation: isolation)
        #expect(crashed.failures.map(\.error.code) == [.pluginCrashed])
    }

    @Test("interactions that break graft.h's rules are invalid_descriptor, each named")
    func invalid() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("plugins")
        try Fixtures.build("bad_interaction", into: folder)
        let host = Self.host(folder, cache: scratch.file("cache"))
        #expect(host.failures.map(\.error.code) == [.invalidDescriptor])
        // `graft check`'s view: every problem at once.
        let check = GraftHost.check(pluginAt: folder.appendingPathComponent("libbad_interaction.so").path, scanning: Scanning())
        let messages = check.problems.map(\.message).joined(separator: " | ")
        #expect(check.problems.map(\.code) == [.invalidDescriptor, .invalidDescriptor])
        #expect(messages.contains("'Tap Now'"), "\(messages)")
        #expect(messages.contains("declares interaction 'tap' twice"), "\(messages)")
    }
}
