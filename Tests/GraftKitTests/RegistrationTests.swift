import CGraft
@testable import GraftKit
import Testing

/// Registration checking. These plugins are not the image's plugin, so their
/// images are built directly and their `init` is called as a method.
@Suite("Registration checks")
struct RegistrationTests {
    private func image<Plugin: GraftPlugin>(of plugin: Plugin.Type) -> PluginImage {
        PluginImage(pluginType: ObjectIdentifier(plugin), info: plugin.info,
                    register: { plugin.register(in: $0) })
    }

    @Test("permissions are checked as the host checks them: a reason, ports, an absolute folder")
    func permissionRules() {
        let info = PluginInfo(
            id: "dev.graft.permissions", version: "1", name: "Permissions",
            permissions: [
                .networkConnections(ports: [], reason: "No ports."), .readFolder("relative", reason: "A relative folder."),
                .dataFolder(reason: ""), .anyNetworkConnection(reason: "a\u{1B}[2J"),
            ])
        #expect(RegistrationCheck.problems(info: info, registration: PluginRegistration()) == [
            "networkConnections(ports:) needs 1 to 64 ports, none of them 0.",
            "readFolder(\"relative\") needs an absolute path.",
            "A permission has no reason; say why the plugin needs it.",
            "A permission's reason holds control characters.",
        ])
    }

    @Test("stories are checked as the host checks them, and bridged to graft.stories/1 in declaration order")
    func stories() throws {
        let registration = PluginRegistration()
        registration.registerCustomComponent(key: "card", version: 1, definition: CustomComponentDefinition(
            inputs: ["title": .string],
            stories: [
                ComponentStory("short", description: "A short title.", config: ["title": "Hi"]),
                ComponentStory("Bad Name", config: [:]), ComponentStory("short", config: [:]),
                ComponentStory("typed", config: ["title": 3]), ComponentStory("extra", config: ["colour": "red"]),
            ],
            factory: { _, _ in nil }))
        let info = PluginInfo(id: "dev.graft.stories", version: "1", name: "Stories")
        #expect(RegistrationCheck.problems(info: info, registration: registration) == [
            "Component \"card\" version 1: story \"Bad Name\" must be non-empty and use only a-z, 0-9, '_', '.', '-'.",
            "Component \"card\" version 1: story \"short\" is registered more than once.",
            "Component \"card\" version 1: story \"typed\" \"title\" is a number; the input is declared string.",
            "Component \"card\" version 1: story \"extra\" key \"colour\" is not a declared input.",
        ])
        let good = PluginRegistration()
        good.registerCustomComponent(key: "card", version: 1, definition: CustomComponentDefinition(
            inputs: ["title": .string],
            stories: [ComponentStory("short", description: "A short title.", config: ["title": "Hi"]), ComponentStory("empty", config: [:])],
            factory: { _, _ in nil }))
        let registry = Registry(info: info, registration: good, host: HostConnection())
        let table = try #require(registry.factory(id: FactoryID.stories)?.assumingMemoryBound(to: graft_stories_t.self))
        #expect(table.pointee.count!(table) == 2)
        let first = try #require(table.pointee.get!(table, 0)?.pointee)
        #expect(String(cString: first.component) == "card" && first.version == 1)
        #expect(String(cString: first.name) == "short" && String(cString: first.description) == "A short title.")
        #expect(String(cString: first.config) == #"{"title":"Hi"}"#)
        #expect(String(cString: table.pointee.get!(table, 1)!.pointee.name) == "empty")
        #expect(table.pointee.get!(table, 2) == nil)
    }

    @Test("init refuses a plugin that breaks the rules and logs every problem at once")
    func brokenPluginIsRefused() {
        let host = FakeHost()
        let broken = image(of: BrokenPlugin.self)
        #expect(!broken.initialize(host: host.pointer))
        let prefix = "\(GRAFT_LOG_ERROR) GraftKit: dev.graft.broken: "
        #expect(host.logs == [
            "PluginInfo.version is empty.",
            "Component \"Bad Key\" version 0: the key must be non-empty and use only a-z, 0-9, '_', '.', '-'.",
            "Component \"Bad Key\" version 0: the version must be between 1 and 4294967295.",
            "Component \"Bad Key\" version 0: input \"shape\" is an object; inputs may be string, number, boolean or list.",
            "Component \"Bad Key\" version 0, output \"done\": payload field \"ok?\" must be non-empty and use only a-z, 0-9, '_', '.', '-'.",
            "Component \"Bad Key\" version 0: debugConfig key \"ghost\" is not a declared input.",
            "Component \"Bad Key\" version 0: debugConfig \"label\" is a number; the input is declared string.",
            "Component \"dup\" version 1: 65 inputs; graft.h allows at most 64.",
            "Validator \"check\" version 1: param \"a\" is registered more than once.",
            "Action \"\" version 1: the key must be non-empty and use only a-z, 0-9, '_', '.', '-'.",
            "Action \"\" version 1: param \"Up\" must be non-empty and use only a-z, 0-9, '_', '.', '-'.",
            "Component \"dup\" version 1 is registered more than once.",
        ].map { prefix + $0 })
        #expect(broken.registry.factory(id: FactoryID.component) == nil, "no C tables for a refused plugin")
    }

    @Test("a plugin with no validators or actions offers no such factories")
    func absentFactoriesAreNull() {
        let image = image(of: ComponentsOnlyPlugin.self)
        let host = FakeHost()
        #expect(image.initialize(host: host.pointer))
        #expect(host.logs.isEmpty)
        #expect(image.registry.factory(id: FactoryID.component) != nil)
        #expect(image.registry.factory(id: FactoryID.validator) == nil)
        #expect(image.registry.factory(id: FactoryID.action) == nil)
    }

    @Test("many validators share one C function and each answers for itself")
    func manyValidators() {
        let host = FakeHost()
        let image = image(of: ManyValidatorsPlugin.self)
        #expect(image.initialize(host: host.pointer))
        #expect(image.registry.validators.count == 100)
        let table = image.registry.validatorDescriptors!
        // v42 accepts only "42": the shared function must find the right closure through `self`.
        let index = image.registry.validators.firstIndex { $0.name == "v42" }!
        let tree = CTree()
        let writer = FakeWriter()
        let descriptor = table + index
        #expect(descriptor.pointee.validate!(descriptor, tree.pointer("42"), nil, 0, writer.pointer))
        #expect(!descriptor.pointee.validate!(descriptor, tree.pointer("41"), nil, 0, writer.pointer))
    }

    @Test("the factory ids GraftKit answers to are graft.h's")
    func factoryIDs() {
        #expect(FactoryID.component == "graft.component-factory/1")
        #expect(FactoryID.validator == "graft.validator-factory/1")
        #expect(FactoryID.action == "graft.action-factory/1")
    }
}
