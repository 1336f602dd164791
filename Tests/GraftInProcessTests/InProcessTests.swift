import Foundation
import GraftHost
import GraftInProcess
import GraftKit
import GraftTestSupport
import Logging
import Synchronization
import Testing

/// A Swift component living in the test process, written with GraftKit.
final class Stamp: CustomComponent {
    let context: ComponentContext
    let text: String

    init(props: ComponentProps, context: ComponentContext) {
        self.context = context
        text = props.string("text", default: "stamp")
    }

    func render(_ request: RenderRequest) -> GraftKit.Rendering {
        GraftKit.Rendering(text: "[\(text)]", mediaType: .plain)
    }

    func interact(_ action: String, data: Value?) -> Bool {
        switch action {
        case "press": context.emit("pressed", payload: ["text": .string(text)])
        case "shout": context.emit("shouted")
        default: return false
        }
        return true
    }
}

let stamp = CustomComponentDefinition(
    inputs: ["text": .string],
    outputs: ["pressed": OutputSchema(description: "Pressed.", payload: ["text": .string])],
    debugConfig: ["text": "hi"],
    factory: { props, context in Stamp(props: props, context: context) })

/// A double that renders a fixed text, standing in for a plugin's component.
let double = CustomComponentDefinition(
    inputs: ["text": .string], outputs: [:], debugConfig: [:],
    factory: { props, context in Stamp(props: props, context: context) })

final class Events: Sendable {
    private let events = Mutex<[EmittedEvent]>([])
    var all: [EmittedEvent] { events.withLock { $0 } }
    var handler: @Sendable (EmittedEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }
}

func quietHost() -> GraftHost {
    GraftHost(searchPath: SearchPath(folders: []), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
}

@Suite("In-process components")
struct InProcessTests {
    @Test("a registered Swift component renders and emits like a plugin's, with drift warnings")
    func registerAndUse() throws {
        let host = quietHost()
        let registration = try host.registerCustomComponent(key: "stamp", version: 1, definition: stamp)
        #expect(registration.plugin.path.hasPrefix("in-process:"))
        let contract = try host.resolve(ComponentReference(key: "stamp")).contract
        #expect(contract.inputs.map(\.key) == ["text"])
        #expect(contract.debugConfig == ["text": "hi"])

        let events = Events()
        let instance = try host.makeInstance(
            of: ComponentReference(key: "stamp"), id: "s1", inputs: ["text": "ok"], onEvent: events.handler)
        #expect(try instance.render().text == "[ok]")
        #expect(instance.interact("press"))
        #expect(instance.interact("shout"))
        #expect(events.all.map(\.event) == ["pressed", "shouted"])
        #expect(events.all[0].payload == ["text": "ok"])
        #expect(events.all[1].warnings.map(\.code) == [.undeclaredEvent])
        instance.close()

        registration.remove()
        #expect(throws: GraftError.self) { try host.resolve(ComponentReference(key: "stamp")) }
    }

    @Test("GraftKit's props warnings reach the host's instance")
    func propsWarnings() throws {
        let host = quietHost()
        try host.registerCustomComponent(key: "stamp", definition: stamp)
        let instance = try host.makeInstance(of: ComponentReference(key: "stamp"))
        #expect(try instance.render().text == "[stamp]")
        #expect(instance.warnings.map(\.code) == [.inputMissing])
    }

    @Test("the same key + version twice is refused")
    func duplicate() throws {
        let host = quietHost()
        try host.registerCustomComponent(key: "stamp", definition: stamp)
        let error = #expect(throws: GraftError.self) { try host.registerCustomComponent(key: "stamp", definition: stamp) }
        #expect(error?.code == .duplicateComponent)
    }

    @Test("an invalid key is refused with invalid_descriptor")
    func invalidKey() {
        let error = #expect(throws: GraftError.self) {
            try quietHost().registerCustomComponent(key: "Not Valid", definition: stamp)
        }
        #expect(error?.code == .invalidDescriptor)
    }

    @Test("a test double overrides a plugin's key + version and the original comes back")
    func overrideAndRestore() throws {
        let scratch = try Scratch()
        let host = quietHost()
        try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
        let original = try host.resolve(ComponentReference(key: "echo"))
        #expect(original.pluginID == "test.echo")

        let override = try host.overrideCustomComponent(key: "echo", definition: double)
        let replaced = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"])
        #expect(try replaced.render().text == "[x]", "the double answers")
        #expect(replaced.warnings.isEmpty, "an override is a choice, not an ambiguous name: \(replaced.warnings)")
        override.remove()

        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo")
        let restored = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"])
        #expect(try restored.render().text == "echo:x")
        #expect(try replaced.render().text == "[x]", "an instance made during the override keeps its component")
    }

    @Test("the scoped override restores the original even when the body throws")
    func scoped() throws {
        let scratch = try Scratch()
        let host = quietHost()
        try host.load(pluginAt: Fixtures.build("good_echo", into: scratch.url).path)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try host.withCustomComponent(key: "echo", definition: double) {
                #expect(try host.resolve(ComponentReference(key: "echo")).pluginID != "test.echo")
                throw Boom()
            }
        }
        #expect(try host.resolve(ComponentReference(key: "echo")).pluginID == "test.echo")
    }
}
