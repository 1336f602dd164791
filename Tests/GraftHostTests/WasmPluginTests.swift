import Foundation
import GraftTestSupport
import Testing

@testable import GraftHost

/// WebAssembly plugins (docs/WasmABI.md): a `.wasm` file beside the `.so`
/// files, run contained in the host's process by WasmKit, through the same
/// `GraftHost` API, registry rules and contracts.
@Suite("WebAssembly plugins")
struct WasmPluginTests {
    static func host(_ folder: URL, isolation: Isolation = .perPlugin, limits: IsolationLimits = IsolationLimits()) -> GraftHost {
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), cacheFolder: nil, isolation: isolation, limits: limits),
            logger: quietLogger)
        host.loadPlugins()
        return host
    }

    @Test("a .wasm on the search path is described by its graft_entry and registered like a .so", arguments: [Isolation.perPlugin, .inProcess])
    func described(isolation: Isolation) throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"), isolation: isolation)
        #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
        let plugin = try #require(host.plugins.first { $0.id == "com.example.wasm-hello" })
        #expect(plugin.path.hasSuffix("/hello.wasm"))
        #expect(plugin.abi == WasmDescription.abi)
        let contract = try host.resolve(ComponentReference(key: "greeting")).contract
        #expect(contract.inputs == [FieldSpec(key: "name", type: .string)])
        #expect(contract.outputs == [OutputSpec(event: "said", payload: [FieldSpec(key: "text", type: .string)])])
        #expect(contract.interactions.map(\.name) == ["say"])
        #expect(contract.debugConfig == ["name": "Ada"])
        #expect(plugin.validators.map(\.name) == ["even_length"])
        #expect(plugin.actions.map(\.key) == ["shout"])
    }

    @Test("a component renders, answers an interaction with its event, takes new inputs and keeps its state")
    func component() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"))
        let events = Locked<[EmittedEvent]>([])
        let greeting = try host.makeInstance(of: "greeting", inputs: ["name": "Ada"]) { event in events.withLock { $0.append(event) } }
        let html = try greeting.render(as: .html)
        #expect(html.text == "<p>Hello, Ada!</p>")
        #expect(html.mediaType == .html)
        #expect(try greeting.render(as: .plain).text == "Hello, Ada")
        #expect(greeting.interact("say"))
        #expect(events.withLock { $0.map(\.event) } == ["said"])
        #expect(events.withLock { $0.first?.payload } == ["text": "Hello, Ada"])
        #expect(greeting.takeWarnings().isEmpty)
        try greeting.update(inputs: ["name": "Grace"])
        #expect(try greeting.render(as: .plain).text == "Hello, Grace")
        // Drift is forwarded with a warning, as for a .so.
        try greeting.update(inputs: ["name": 3])
        #expect(greeting.takeWarnings().map(\.code).contains(.inputTypeMismatch))
        greeting.close()
        let missing = #expect(throws: GraftError.self) { try host.makeInstance(of: "greeting@2") }
        #expect(missing?.code == .componentVersionMismatch)
    }

    @Test("a validator and an action answer through the same API, naming their plugin")
    func validatorAndAction() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"))
        let even = try host.validate("even_length", value: "abcd")
        #expect(even.isValid)
        #expect(even.pluginID == "com.example.wasm-hello")
        #expect(try host.validate("even_length", value: "abc").message == "has an odd length")
        #expect(try host.validate("even_length", value: 3).message == "is not a string")
        let shouted = try host.invokeAction("shout", params: ["text": "hi"])
        #expect(shouted.ok)
        #expect(shouted.variables == ["shouted": "HI"])
        #expect(shouted.result == "HI")
        let failed = try host.invokeAction("shout")
        #expect(!failed.ok)
        #expect(failed.error == "no text to shout")
    }

    @Test("a trap is plugin_crashed with its words, and the next call runs in a fresh instance")
    func trap() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"))
        let survivor = try host.makeInstance(of: "greeting", inputs: ["name": "Ada"])
        let trapping = try host.makeInstance(of: "greeting", inputs: ["name": "trap"])
        let error = #expect(throws: GraftError.self) { try trapping.render() }
        #expect(error?.code == .pluginCrashed)
        #expect(error?.message.contains("unreachable, in graft_render") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("0x") == false, "no host addresses")
        // The instance that lived in the thrown-away guest is made again from its inputs.
        #expect(try survivor.render(as: .plain).text == "Hello, Ada")
        #expect(survivor.takeWarnings().map(\.code) == [.pluginRestarted])
        #expect(try survivor.render(as: .plain).text == "Hello, Ada")
        #expect(survivor.takeWarnings().isEmpty, "made again once")
        #expect(try host.validate("even_length", value: "ab").isValid)
    }

    @Test("a guest that floods the host with events, or names memory it does not have, fails its call; the host takes nothing unbounded")
    func floods() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"))
        for (name, words) in [("flood", "more than 1024 events"), ("wild", "outside its memory")] {
            let instance = try host.makeInstance(of: "greeting", inputs: ["name": .string(name)])
            let error = #expect(throws: GraftError.self) { try instance.render() }
            #expect(error?.code == .pluginCrashed)
            #expect(error?.message.contains(words) == true, "\(name): \(error?.message ?? "")")
        }
        #expect(try host.makeInstance(of: "greeting", inputs: ["name": "Ada"]).render(as: .plain).text == "Hello, Ada")
    }

    @Test("an endless loop runs out of fuel (plugin_timeout); a deep recursion ends too; the host lives on")
    func fuel() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"), limits: IsolationLimits(fuel: 5_000_000))
        for name in ["loop", "deep"] {
            let instance = try host.makeInstance(of: "greeting", inputs: ["name": .string(name)])
            let error = #expect(throws: GraftError.self) { try instance.render() }
            #expect([.pluginTimeout, .pluginCrashed].contains(error?.code), "\(name): \(String(describing: error))")
            if name == "loop" { #expect(error?.code == .pluginTimeout) }
        }
        #expect(try host.makeInstance(of: "greeting", inputs: ["name": "Ada"]).render(as: .plain).text == "Hello, Ada")
    }

    @Test("a guest granted nothing reads no file, folder, environment or clock, and its standard output goes to the log")
    func nothingGranted() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let log = CapturedLog()
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [scratch.file("plugins").path]), cacheFolder: nil),
            logger: log.logger)
        host.loadPlugins()
        let secrets = try host.makeInstance(of: "greeting", inputs: ["name": "secrets"])
        #expect(try secrets.render(as: .plain).text == "file: refused, folder: refused, env: none, clock: refused")
        let printing = try host.makeInstance(of: "greeting", inputs: ["name": "print"])
        #expect(try printing.render(as: .plain).text == "Hello, print", "what it prints is not its render")
        let printed = log.all.filter { $0.message.contains("printed by print") }
        #expect(printed.map(\.message) == ["com.example.wasm-hello: printed by print"])
        #expect(printed.first?.metadata["path"]?.hasSuffix("hello.wasm") == true)
    }

    @Test("memory stops at the cap, and output past the limit is output_too_large")
    func limits() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("hello", into: scratch.file("plugins"))
        let host = Self.host(scratch.file("plugins"), limits: IsolationLimits(memory: 16 << 20, output: 4096))
        let grown = try host.makeInstance(of: "greeting", inputs: ["name": "grow"]).render(as: .plain).text
        let mebibytes = try #require(Int(grown.split(separator: " ").dropFirst(2).first ?? ""), "\(grown)")
        #expect(grown.hasPrefix("capped after "))
        #expect(mebibytes > 0 && mebibytes < 16)
        let big = try host.makeInstance(of: "greeting", inputs: ["name": "big"])
        let error = #expect(throws: GraftError.self) { try big.render(as: .plain) }
        #expect(error?.code == .outputTooLarge)
        #expect(error?.message.contains("4096 bytes") == true)
        #expect(try host.makeInstance(of: "greeting", inputs: ["name": "Ada"]).render(as: .plain).text == "Hello, Ada")
    }

    @Test("modules that break the ABI are refused with a clear error, and the other plugins load", arguments: [
        ("HELLO_FOREIGN_IMPORT", GraftError.Code.wasmImportUnknown, "env.socket"),
        ("HELLO_NO_BUFFER", .entrySymbolMissing, "graft_buffer"),
        ("HELLO_ENTRY_TRAPS", .pluginCrashed, "unreachable"),
        ("HELLO_ENTRY_LOOPS", .pluginTimeout, "fuel"),
        ("HELLO_BAD_DESCRIPTION", .invalidDescriptor, "Bad Key"),
        ("HELLO_NETWORK", .invalidDescriptor, "a WebAssembly plugin has no network"),
        ("HELLO_BAD_PERMISSION", .invalidDescriptor, "permission #0 is 'write:/etc'"),
        ("HELLO_NO_REASON", .invalidDescriptor, "permission #0 has no reason"),
    ])
    func refused(define: String, code: GraftError.Code, words: String) throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        try Fixtures.buildWasm("hello", into: folder, defines: [define: "1"], outputName: "broken.wasm")
        try Fixtures.build("good_echo", into: folder)
        let host = Self.host(folder, limits: IsolationLimits(fuel: 5_000_000))
        let failure = try #require(host.failures.first { $0.path.hasSuffix("broken.wasm") })
        #expect(failure.error.code == code, "\(failure.error)")
        #expect(failure.error.message.contains(words), "\(failure.error.message)")
        #expect(host.plugins.map(\.id) == ["test.echo"])
    }

    @Test("a .wasm file that is not valid WebAssembly is wasm_invalid; one without the magic is judged as a shared library")
    func notWebAssembly() throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var bytes: [UInt8] = [0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00]
        bytes += Array(repeating: 0xFF, count: 32)
        try Data(bytes).write(to: folder.appendingPathComponent("garbage.wasm"))
        try Data("just text".utf8).write(to: folder.appendingPathComponent("text.wasm"))
        let host = Self.host(folder)
        let garbage = try #require(host.failures.first { $0.path.hasSuffix("garbage.wasm") })
        #expect(garbage.error.code == .wasmInvalid)
        let text = try #require(host.failures.first { $0.path.hasSuffix("text.wasm") })
        #expect(text.error.code == .notASharedLibrary, "a file without the magic is judged as a shared library: \(text.error)")
    }

    @Test("a rebuilt .wasm swaps in place: live instances move to the new build with their state, and a broken build leaves the old one serving")
    func hotSwap() throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        let path = try Fixtures.buildWasm("hello", into: folder).path
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), loadsFromCopies: true, cacheFolder: nil),
            logger: quietLogger)
        host.loadPlugins()
        let greeting = try host.makeInstance(of: "greeting", inputs: ["name": "Ada"])
        #expect(try greeting.render(as: .plain).text == "Hello, Ada")
        guard case .unchanged = host.reload(pluginAt: path).outcome else {
            Issue.record("an unchanged file was reloaded")
            return
        }

        try Fixtures.buildWasm("hello", into: folder, defines: ["HELLO_WORD": "\"Hi\""])
        let swap = host.reload(pluginAt: path)
        guard case .swapped = swap.outcome else {
            Issue.record("the new build did not swap in: \(swap)")
            return
        }
        #expect(swap.recreated.map(\.instanceID) == [greeting.id])
        #expect(swap.recreated.first?.stateCarried == true)
        #expect(try greeting.render(as: .plain).text == "Hi, Ada")

        try Fixtures.buildWasm("hello", into: folder, defines: ["HELLO_ENTRY_TRAPS": "1"])
        let rejected = host.reload(pluginAt: path)
        guard case .failed(let error) = rejected.outcome else {
            Issue.record("a build that traps in graft_entry was not rejected: \(rejected)")
            return
        }
        #expect(error.code == .pluginCrashed)
        #expect(try greeting.render(as: .plain).text == "Hi, Ada", "the running build keeps serving")
    }

    @Test("a graft.h plugin builds both ways from one source: Checkout's email validator as a .so and as a .wasm answers alike")
    func bothWays() throws {
        let scratch = try Scratch()
        let checkout = Fixtures.checkoutFolder
        let sources = [checkout.appendingPathComponent("email.c"), checkout.appendingPathComponent("text.c")]
        let flags = ["-I", checkout.path, "-I", checkout.appendingPathComponent("include").path]
        try Fixtures.buildNative("checkout_email", into: scratch.file("native"), sources: sources, flags: flags)
        try Fixtures.buildWasm("checkout_email", into: scratch.file("wasm"), sources: sources + [Fixtures.wasmBridge], flags: flags)
        let native = Self.host(scratch.file("native"), isolation: .inProcess)
        let wasm = Self.host(scratch.file("wasm"))
        #expect(native.failures.isEmpty && wasm.failures.isEmpty, "\(native.failures.map(\.error)) \(wasm.failures.map(\.error))")
        #expect(wasm.plugins.first?.isWebAssembly == true)
        #expect(wasm.plugins.first?.validators == native.plugins.first?.validators)
        let values: [GraftValue] = ["ada@example.com", "a@@b.co", ".ada@example.com", "ada@example", "", 42, ["x"], "ädä@example.com"]
        for value in values {
            let expected = try native.validate("email", value: value)
            let answered = try wasm.validate("email", value: value)
            #expect(answered.isValid == expected.isValid && answered.message == expected.message, "\(value): \(answered) against \(expected)")
        }
    }

    @Test("a graft.h component built with the bridge renders, emits and keeps its stories as a .wasm")
    func bridgedComponent() throws {
        let scratch = try Scratch()
        try Fixtures.buildWasm("bridged_widget", into: scratch.file("plugins"), sources: [Fixtures.wasmBridge])
        let host = Self.host(scratch.file("plugins"))
        #expect(host.failures.isEmpty, "\(host.failures.map(\.error))")
        let contract = try host.resolve(ComponentReference(key: "badge")).contract
        #expect(contract.stories.map(\.name) == ["long"])
        #expect(contract.interactions.map(\.name) == ["tap"])
        let events = Locked<[EmittedEvent]>([])
        let badge = try host.makeInstance(of: "badge", inputs: ["label": "new \"quoted\" ✓", "count": 3]) { event in
            events.withLock { $0.append(event) }
        }
        #expect(try badge.render(as: .plain).text == "[new \"quoted\" ✓: 3]")
        #expect(badge.interact("tap", data: ["times": 2]))
        #expect(events.withLock { $0.first?.payload } == ["label": "new \"quoted\" ✓", "count": 5])
        try badge.update(inputs: ["label": "x", "count": 1])
        #expect(try badge.render(as: .plain).text == "[x: 1]")
    }

    @Test("the folder watcher swaps a .wasm when its new build lands, once per build")
    func watched() async throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        try Fixtures.buildWasm("hello", into: folder)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: [folder.path]), loadsFromCopies: true, cacheFolder: nil),
            logger: quietLogger)
        host.loadPlugins()
        let greeting = try await host.makeInstance(of: "greeting", inputs: ["name": "Ada"])
        let events = Locked<[SwapEvent]>([])
        host.addSwapObserver { event in events.withLock { $0.append(event) } }
        let watcher = try host.watchPluginFolders([folder.path], debounce: .milliseconds(30))
        defer { watcher.stop() }
        try Fixtures.buildWasm("hello", into: folder, defines: ["HELLO_WORD": "\"Hi\""])  // written aside, then renamed in
        #expect(await eventually(within: .seconds(10)) { events.withLock { $0.count } >= 1 && watcher.isSettled })
        #expect(events.withLock { $0.count } == 1, "\(events.withLock { $0.map(\.summary) })")
        #expect(try await greeting.render(as: .plain).text == "Hi, Ada")
    }
}
