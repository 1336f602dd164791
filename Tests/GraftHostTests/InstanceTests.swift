import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

@Suite("Component instances")
struct InstanceTests {
    @Test("a component named in a String variable, as a flow names it, sync and async; one that does not parse is invalid_reference")
    func namedByString() async throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        // Not async: the synchronous overload.
        func rendered(_ name: String) throws -> String? { try host.makeInstance(of: name, inputs: ["text": "v"]).render().text }
        for name in ["echo", "echo@1", "test.echo/echo"] {
            #expect(try rendered(name) == "echo:v", "\(name)")
            #expect(try await host.makeInstance(of: name, inputs: ["text": "a"]).render().text == "echo:a", "\(name)")
        }
        let malformed = "echo@"
        let error = #expect(throws: GraftError.self) { try host.makeInstance(of: malformed) }
        #expect(error?.code == .invalidReference)
    }

    @Test("render, interact and emit across the C ABI")
    func renderAndEmit() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let log = EventLog()
        let echo = try host.makeInstance(
            of: ComponentReference(key: "echo"), id: "greeting", inputs: ["text": "hello"], onEvent: log.handler)
        #expect(try echo.render().text == "echo:hello")
        #expect(echo.interact("say"))
        #expect(!echo.interact("no_such_action"))
        #expect(log.all.count == 1)
        #expect(log.all.first?.event == "said")
        #expect(log.all.first?.payload == ["text": "hello"])
        #expect(log.all.first?.instanceID == "greeting")
        #expect(log.all.first?.warnings.isEmpty == true)
        #expect(echo.warnings.isEmpty)
    }

    @Test("drift is forwarded with a warning: undeclared event, payload off schema")
    func eventDrift() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let log = EventLog()
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "x"], onEvent: log.handler)
        echo.interact("drift")
        echo.interact("bad_payload")
        #expect(log.all.map(\.event) == ["shout", "said"], "both events are forwarded")
        #expect(log.all[0].warnings.map(\.code) == [.undeclaredEvent])
        #expect(log.all[1].warnings.map(\.code) == [.payloadSchemaMismatch])
        #expect(echo.warnings.map(\.code) == [.undeclaredEvent, .payloadSchemaMismatch])
    }

    @Test("a mistyped input is dropped with a warning; an unknown input is forwarded with a warning")
    func inputDrift() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": 42, "colour": "red"])
        #expect(try echo.render().text == "echo:", "the component got its default instead of a number")
        #expect(Set(echo.warnings.map(\.code)) == [.inputTypeMismatch, .unknownInput])
        #expect(echo.warnings.contains { $0.message.contains("'text'") })
    }

    @Test("update inputs, save and load state, close")
    func lifecycle() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": "a"])
        _ = try echo.render()
        _ = try echo.render()
        try echo.update(inputs: ["text": "b"])
        #expect(try echo.render().text == "echo:b")
        #expect(echo.saveState().map { String(decoding: $0, as: UTF8.self) } == "renders=3")
        #expect(echo.loadState(Array("renders=10".utf8)))
        #expect(!echo.loadState(Array("garbage".utf8)))
        echo.close()
        let error = #expect(throws: GraftError.self) { try echo.render() }
        #expect(error?.code == .instanceClosed)
        #expect(error?.message.contains("closed") == true)
        echo.close()
    }

    @Test("a missing component cannot be instantiated and says so")
    func missingComponent() throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let error = #expect(throws: GraftError.self) { try host.makeInstance(of: ComponentReference(key: "nope")) }
        #expect(error?.code == .customComponentNotFound)
    }

    @Test("instances render concurrently from many threads")
    func concurrentRenders() async throws {
        let scratch = try Scratch()
        let host = try echoHost(scratch)
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let echo = try host.makeInstance(of: ComponentReference(key: "echo"), inputs: ["text": .string("\(index)")])
                    var last = ""
                    for _ in 0..<500 { last = try echo.render().text }
                    return last
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(outputs == Set((0..<8).map { "echo:\($0)" }))
    }
}
