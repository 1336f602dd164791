import CGraft
import GraftKit
import Synchronization
import Testing

@Suite("Component instances")
struct InstanceTests {
    let ada: Value = ["name": "Ada", "times": 3, "tags": ["x"], "loud": true]

    private func greeting(_ inputs: Value? = nil, version: UInt32 = 1,
                          context: FakeComponentContext = FakeComponentContext(width: 80, height: 24)) throws -> HostInstance {
        try #require(HostSide.create("greeting", version: version, inputs: inputs ?? ada, context: context))
    }

    @Test("render writes the text for the requested media type, with the container size")
    func renderPlainAndHTML() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        let plain = instance.render("text/plain")
        #expect(plain.ok && plain.writer.text == "HELLO, Ada! x3 (80x24)")
        #expect(plain.writer.mediaTypes.isEmpty, "same type as requested: set_media_type is not called")
        let html = instance.render("text/html")
        #expect(html.ok && html.writer.text == "<p>HELLO, Ada! x3 (80x24)</p>")
        #expect(html.writer.mediaTypes.isEmpty)
        #expect(instance.context.warnings.isEmpty)
    }

    @Test("a rendering of another media type than requested is declared through set_media_type")
    func renderOtherMediaType() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        let markdown = instance.render("text/markdown")
        #expect(markdown.ok && markdown.writer.mediaTypes == ["text/plain"])
    }

    @Test("render reports failure when the host's writer refuses the text")
    func renderRefused() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        let result = instance.render("text/plain", into: FakeWriter(limit: 3))
        #expect(!result.ok && result.writer.writeCalls == 1)
    }

    @Test("interact emits declared events with payloads the host reads as C values")
    func interactEmits() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        #expect(instance.interact("greet"))
        #expect(instance.interact("ping"))
        #expect(instance.interact("echo", data: ["k": [1, "two", nil, false, 0.25]]))
        #expect(instance.interact("echo"))
        #expect(!instance.interact("no_such_action"))
        #expect(instance.context.emits.map(\.description) == [
            #"greeted {"count":1,"meta":{"nested":true,"none":null,"ratio":0.5},"name":"Ada","tags":["x"]}"#,
            "pinged NULL",
            #"echoed {"data":{"k":[1,"two",null,false,0.25]}}"#,
            #"echoed {"data":"no data"}"#,
        ])
    }

    @Test("the component logs through its context")
    func logs() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        #expect(instance.interact("log"))
        #expect(instance.context.logs == ["\(GRAFT_LOG_WARNING) careful"])
    }

    @Test("reading inputs of the wrong type or missing ones warns and falls back to the default")
    func propsWarnings() throws {
        let instance = try greeting(["name": 42, "times": "three", "loud": nil])
        defer { instance.destroy() }
        #expect(instance.render("text/plain").writer.text == "Hello, world! x1 (80x24)")
        let warnings = instance.context.warnings
        #expect(warnings.map(\.code) == ["input_type_mismatch", "input_type_mismatch", "input_missing", "input_missing"])
        #expect(warnings[0].message == "Input \"name\" expected a string but got the number 42. The default was used.")
        #expect(warnings[1].message == "Input \"times\" expected a number but got string. The default was used.")
        #expect(warnings[2].message == "Input \"tags\" is missing; expected a list. The default was used.")
        #expect(warnings[3].message == "Input \"loud\" is null; expected a boolean. The default was used.")
    }

    @Test("reading an undeclared input warns unknown_input, naming the declared ones")
    func undeclaredInput() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        #expect(instance.interact("read_undeclared"))
        #expect(instance.context.warnings == [FakeComponentContext.Warning(
            code: "unknown_input",
            message: "The component read input \"nickname\", which its definition does not declare (declared: loud, name, tag, tags, times).")])
    }

    @Test("int accepts whole numbers only")
    func intInputs() throws {
        let whole = try greeting(["name": "A", "times": 4, "tags": [], "loud": false])
        defer { whole.destroy() }
        #expect(whole.interact("read_int") && whole.context.warnings.isEmpty)

        let fraction = try greeting(["name": "A", "times": 2.5, "tags": [], "loud": false])
        defer { fraction.destroy() }
        #expect(fraction.interact("read_int"))
        #expect(fraction.context.warnings.map(\.message) == [
            "Input \"times\" expected an integer (a number with no fractional part) but got the number 2.5. The default was used."])
    }

    @Test("create without inputs (NULL) warns for every input read")
    func createWithNullInputs() throws {
        let context = FakeComponentContext()
        let instance = try #require(HostSide.create("greeting", version: 2, inputs: nil, context: context))
        defer { instance.destroy() }
        #expect(context.warnings.map(\.code) == Array(repeating: "input_missing", count: 4))
        #expect(instance.render("text/plain").writer.text == "Hello, world! x1 (0x0)")
    }

    @Test("update_inputs hands the component a new set of inputs")
    func updateInputs() throws {
        let instance = try greeting()
        defer { instance.destroy() }
        #expect(instance.update(["name": "Grace", "times": 1, "tags": [], "loud": false]))
        #expect(instance.render("text/plain").writer.text == "Hello, Grace! x1 (80x24)")
        #expect(instance.interact("greet"))
        #expect(instance.context.emits.last?.payload?.contains(#""name":"Grace""#) == true)
    }

    @Test("state saved by one instance is loaded by another")
    func saveAndLoadState() throws {
        let old = try greeting()
        #expect(old.interact("greet") && old.interact("greet"))
        let saved = old.saveState()
        old.destroy()
        #expect(saved.ok && saved.state == "greetings=2")

        let new = try greeting(version: 2)
        defer { new.destroy() }
        #expect(new.loadState(Array(saved.state.utf8)))
        #expect(new.interact("greet"))
        #expect(new.context.emits.last?.payload?.hasPrefix(#"{"count":3,"#) == true)
        #expect(!new.loadState(Array("nonsense".utf8)))
        #expect(!new.loadState([0x67, 0xFF, 0xFE]), "invalid UTF-8 is not understood")
    }

    @Test("a component that keeps the defaults answers no to every optional call")
    func minimalDefaults() throws {
        let context = FakeComponentContext()
        let instance = try #require(HostSide.create("minimal", version: 1, inputs: [:], context: context))
        defer { instance.destroy() }
        let rendering = instance.render("text/plain")
        #expect(rendering.ok && rendering.writer.bytes == Array("minimal ✓".utf8))
        #expect(!instance.update([:]))
        #expect(!instance.interact("anything"))
        let saved = instance.saveState()
        #expect(!saved.ok && saved.state.isEmpty)
        #expect(!instance.loadState(Array("x".utf8)))
        #expect(context.emits.isEmpty && context.warnings.isEmpty)
    }

    @Test("create returns NULL for an unknown key or version, or when the factory returns nil",
          arguments: [("greeting", 3), ("greeting", 0), ("nope", 1), ("refusing", 1)] as [(String, UInt32)])
    func createFails(key: String, version: UInt32) {
        let context = FakeComponentContext()
        #expect(HostSide.create(key, version: version, inputs: ["name": "x"], context: context) == nil)
        #expect(context.emits.isEmpty)
    }

    @Test("a context kept past destroy does nothing")
    func contextAfterDestroy() throws {
        let instance = try greeting(["name": "A", "tag": "after-destroy"])
        instance.destroy()
        let escaped = try #require(Greeting.escaped.withLock { $0.removeValue(forKey: "after-destroy") })
        escaped.emit("late", payload: ["x": 1])
        escaped.emit("late")
        escaped.log(.error, "late")
        #expect(escaped.containerSize == ContainerSize(width: 0, height: 0))
        #expect(instance.context.emits.isEmpty && instance.context.logs.isEmpty)
        #expect(instance.context.callsAfterDestroy == 0)
    }

    @Test("destroy waits for emits in flight on other threads")
    func destroyWaitsForOtherThreads() async throws {
        let context = FakeComponentContext(emitDelay: 2_000)
        let instance = try greeting(["name": "A", "tag": "race"], context: context)
        let escaped = try #require(Greeting.escaped.withLock { $0.removeValue(forKey: "race") })
        let stop = Atomic<Bool>(false)
        // Emits until told to stop, so destroy always lands mid-stream however
        // the machine schedules the two threads.
        let emitter = Task.detached {
            var index = 0
            while !stop.load(ordering: .relaxed) && index < 1_000_000 {
                escaped.emit("tick", payload: ["i": .number(Double(index))])
                index += 1
            }
        }
        while context.emits.isEmpty { await Task.yield() }
        instance.destroy()
        let countAtDestroy = context.emits.count
        try await Task.sleep(for: .milliseconds(20))
        stop.store(true, ordering: .relaxed)
        await emitter.value
        #expect(countAtDestroy > 0)
        #expect(context.emits.count == countAtDestroy, "no emit reaches the host after destroy returns")
        #expect(context.callsAfterDestroy == 0, "no host call may run after destroy returns")
    }
}
