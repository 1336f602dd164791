import GraftSupport

#if WebAssembly
import Logging
// `Store.resourceLimiter` (SPI): WasmKit's only hook for a memory cap.
@_spi(Fuzzing) import WasmKit

/// One `.wasm` plugin in this process: its module, and the WebAssembly
/// instance its calls run in, one call at a time. The instance is all the
/// guest can reach: its own memory and the imports `WasmImports` gives.
///
/// Every call gets the configured fuel (`plugin_timeout` when it runs out)
/// and output limit, and the memory may not grow past the cap. A trap, or a
/// guest that breaks the ABI, ends the call as `plugin_crashed` with the
/// trap's words, and the instance is thrown away: the next call runs in a
/// fresh one (WasmKit leaves an instance that overflowed its stack trapping
/// for ever), where live component instances are created again.
final class WasmPlugin: PluginGuest, @unchecked Sendable {
    let path: String
    private(set) var id = ""
    private let module: Module
    let limits: IsolationLimits
    private let logger: Logger
    private let lock = Lock()
    // Guarded by `lock`:
    private var live: Live?
    /// Bumped whenever an instance is thrown away; component instances made in an older one are gone.
    private(set) var generation = 0
    private let call = GuestCall()
    private var logRate = LineRate()
    /// Whether its description was read: each later instance runs `graft_entry` too, its output unread.
    private var described = false
    /// The folders it was granted (`grant`), given to each new instance.
    private var grants = WasmGrants()
    /// Told what the rules of its folders refused it, once each call is over.
    private var reportDenials: (@Sendable (_ denials: [SandboxDenial], _ during: String) -> Void)?

    /// A live instance and the exports the host calls, looked up once.
    final class Live {
        let store: Store
        let instance: Instance
        let memory: Memory
        let buffer: Function
        /// Its granted folders, closed with it.
        var folders: WasmFolders?
        /// The interpreter's stack its calls run on: `Function.invoke(_:)` would allocate one (512 KiB) per call.
        var stack: ExecutionStack
        /// The last buffer `graft_buffer` gave: valid until it is called again (docs/WasmABI.md), so reused.
        var bufferBase: UInt32 = 0
        var bufferSize = 0
        var functions: [String: Function] = [:]

        init(store: Store, instance: Instance, memory: Memory, buffer: Function, stack: consuming ExecutionStack) {
            self.store = store
            self.instance = instance
            self.memory = memory
            self.buffer = buffer
            self.stack = stack
        }

        func function(_ name: String) -> Function? {
            if let known = functions[name] { return known }
            let found = instance.exports[function: name]
            functions[name] = found
            return found
        }
    }

    /// Bounds checks in software: WasmKit's other choice installs a
    /// process-wide SIGSEGV and SIGBUS handler, which would change how the
    /// host (and a host app) handles its own faults. Fuel metering on.
    private static let engine = Engine(configuration: EngineConfiguration(memoryBoundsChecking: .software, fuelMetering: true))
    /// Guard pages and that signal handler instead: for `graft bench wasm`
    /// alone, which measures the two against each other in a process of its
    /// own (`GraftConfiguration.wasmHardwareBounds`). No host uses it.
    private static let hardwareEngine = Engine(configuration: EngineConfiguration(memoryBoundsChecking: .mprotect, fuelMetering: true))
    private let engine: Engine

    /// What a call of the guest answered: its results, and what it gave through imports.
    struct Answer {
        var results: [Value]
        var output: [UInt8]
        var overflowed: Bool
        var mediaType: String?
        var events: [(event: String, payload: GraftValue?)]
        var variables: [String: GraftValue]
        var result: GraftValue?
        var error: String?
        /// The component instance was made again first: the guest that held it was thrown away.
        var recreated = false

        var flag: Bool { if case .i32(let value) = results.first { value != 0 } else { false } }
        var handle: UInt32 { if case .i32(let value) = results.first { value } else { 0 } }
    }

    /// Parses `bytes` (the file at `path`), instantiates it and reads its
    /// description. Throws `wasm_invalid`, `wasm_import_unknown`,
    /// `entry_symbol_missing`, `invalid_descriptor`, or what its entry did.
    init(bytes: [UInt8], path: String, limits: IsolationLimits, logger: Logger, hardwareBounds: Bool = false) throws(GraftError) {
        self.path = path
        engine = hardwareBounds ? Self.hardwareEngine : Self.engine
        self.limits = limits
        var logger = logger
        logger[metadataKey: "path"] = "\(path)"
        self.logger = logger
        do {
            module = try parseWasm(bytes: bytes)
        } catch {
            throw GraftError(.wasmInvalid, "\(path) is not a WebAssembly module WasmKit accepts: \(error).", path: path)
        }
        for required in ["graft_entry", "graft_buffer"] where !module.exports.contains(where: { $0.name == required }) {
            throw GraftError(
                .entrySymbolMissing, "\(path) exports no '\(required)' function; a WebAssembly plugin exports graft_entry, graft_buffer and memory (docs/WasmABI.md).",
                path: path, symbol: required)
        }
    }

    /// Reads the description the guest's `graft_entry` writes.
    func describe() throws(GraftError) -> PluginDescription {
        let answer = try run("graft_entry", [], what: "its description", key: nil)
        guard answer.flag, !answer.overflowed else {
            throw GraftError(
                .pluginInitFailed, "\(path): graft_entry \(answer.overflowed ? "wrote a description longer than \(limits.output) bytes" : "answered 0 (it could not start)").",
                path: path, symbol: "graft_entry")
        }
        let description = try WasmDescription.read(String(decoding: answer.output, as: UTF8.self), path: path)
        lock.withLock {
            id = description.id
            described = true
        }
        return description
    }

    /// Makes its instance now (instantiates the module, runs `_initialize`), as its first call would: `graft bench wasm` times it.
    func start() throws(GraftError) {
        try locked("its start") { () throws(GraftError) in _ = try instance() }
    }

    /// Its description as `graft_entry` writes it in a fresh instance (for `graft check --conformance`).
    func describeInFreshInstance() throws(GraftError) -> PluginDescription {
        lock.withLock {
            dropInstance()
            described = false
        }
        return try describe()
    }

    /// What the module exports: each name, and "function", "memory", "table", "global" or "tag".
    var exportKinds: [(name: String, kind: String)] {
        module.exports.map { export in
            let kind = switch export.descriptor {
            case .function: "function"
            case .memory: "memory"
            case .table: "table"
            case .global: "global"
            case .tag: "tag"
            }
            return (export.name, kind)
        }
    }

    /// Gives the guest `grants` from its next instance on (its description
    /// was read in one granted nothing), and where to report what they refuse.
    func grant(_ grants: WasmGrants, reportingTo report: @escaping @Sendable (_ denials: [SandboxDenial], _ during: String) -> Void) {
        lock.withLock {
            self.grants = grants
            reportDenials = report
            if !grants.isEmpty, live != nil { dropInstance() }
        }
    }

    /// Runs `body` under the lock, then reports what the guest's folders refused it.
    private func locked<T>(_ what: @autoclosure () -> String, _ body: () throws(GraftError) -> T) throws(GraftError) -> T {
        lock.lock()
        let result = Result { () throws(GraftError) in try body() }
        let denials = call.takeDenials(), report = reportDenials
        lock.unlock()
        if !denials.isEmpty { report?(denials, what()) }
        return try result.get()
    }

    // MARK: Calls

    /// A component instance in the guest: its handle, and the instance of
    /// the guest it lives in. Used by that instance's calls alone, which its
    /// `InstanceCore` serializes; `value` and `generation` change under the
    /// plugin's lock.
    final class Handle: @unchecked Sendable {
        var value: UInt32 = 0
        var generation = -1
        let key: [UInt8]
        let version: UInt32
        /// Its inputs as JSON, to create it again in a fresh instance.
        var inputs: [UInt8]

        init(key: String, version: Int, inputs: [UInt8]) {
            self.key = Array(key.utf8)
            self.version = UInt32(version)
            self.inputs = inputs
        }
    }

    /// Calls the export `name` with `arguments`, first copying `data` into the
    /// guest's buffer: each piece becomes a (pointer, length) pair, in order,
    /// after the arguments. With `target`, the component instance's handle
    /// goes first, and an instance the guest lost (a trap threw its instance
    /// away) is created again first. Events come back in the answer, to be
    /// delivered once the lock is free (a host app's handler may call this plugin).
    func run(
        _ name: String, _ arguments: [Value], data: [[UInt8]] = [], what: @autoclosure () -> String, key: String?, on target: Handle? = nil,
        outputLimit: Int? = nil
    ) throws(GraftError) -> Answer {
        try locked(what()) { () throws(GraftError) in
            let live = try instance()
            do {
                var leading: [Value] = []
                var recreated = false
                if let target {
                    recreated = try ensure(target, on: live, what: what(), key: key)
                    leading = [.i32(target.value)]
                }
                call.reset(limit: outputLimit ?? limits.output)
                live.store.fuel = Fuel(remaining: limits.fuel)
                let results = try invoke(name, leading + arguments, data: data, on: live, for: what(), key: key)
                return Answer(
                    results: results, output: call.output, overflowed: call.overflowed, mediaType: call.mediaType, events: call.events,
                    variables: call.variables, result: call.result, error: call.error, recreated: recreated)
            } catch {
                throw lose(error, in: what(), key: key)
            }
        }
    }

    /// Creates a component instance in the guest.
    func create(_ target: Handle, what: @autoclosure () -> String, key: String) throws(GraftError) {
        try locked(what()) { () throws(GraftError) in
            let live = try instance()
            do {
                _ = try ensure(target, on: live, what: what(), key: key)
            } catch {
                throw lose(error, in: what(), key: key)
            }
        }
    }

    /// Creates `target` in the live instance unless it is there already;
    /// whether it made it again (it lived in a guest thrown away).
    private func ensure(_ target: Handle, on live: Live, what: @autoclosure () -> String, key: String?) throws -> Bool {
        guard target.generation != generation else { return false }
        call.reset(limit: 0)
        live.store.fuel = Fuel(remaining: limits.fuel)
        let created = try invoke("graft_create", [.i32(target.version)], data: [target.key, target.inputs], on: live, for: what(), key: key)
        guard case .i32(let handle) = created.first, handle != 0 else {
            let afterLoss = target.generation >= 0 ? " again after its instance was thrown away" : ""
            throw GraftError(
                .instanceCreateFailed, "plugin '\(id)' (\(path)) could not create \(key ?? "the component")\(afterLoss): graft_create answered 0.",
                path: path, key: key)
        }
        let again = target.generation >= 0
        target.value = handle
        target.generation = generation
        return again
    }

    /// A failed call's error; unless the host itself refused it, the
    /// instance is thrown away and the next call makes a fresh one.
    private func lose(_ error: any Error, in what: @autoclosure () -> String, key: String?) -> GraftError {
        if let error = error as? GraftError { return error }
        dropInstance()
        return failure(error, in: what(), key: key)
    }

    /// Throws the live instance away (its memory, its store, its folders'
    /// descriptors with it); component instances made in it are gone.
    private func dropInstance() {
        live = nil
        // The memory keeps its store, and so the folders, alive.
        call.memory = nil
        generation += 1
    }

    /// Destroys a component instance, unless the guest already lost it.
    func destroy(_ target: Handle, key: String) {
        try? locked("destroy of \(key)") { () throws(GraftError) in
            guard target.generation == generation, let live else { return }
            call.reset(limit: 0)
            live.store.fuel = Fuel(remaining: limits.fuel)
            do {
                _ = try invoke("graft_destroy", [.i32(target.value)], data: [], on: live, for: "destroy of \(key)", key: key)
            } catch {
                logger.warning("\(lose(error, in: "destroy of \(key)", key: key))")
            }
        }
    }

    private func invoke(_ name: String, _ arguments: [Value], data: [[UInt8]], on live: Live, for what: @autoclosure () -> String, key: String?) throws -> [Value] {
        guard let function = live.function(name) else {
            throw GraftError(.entrySymbolMissing, "\(path) exports no '\(name)' function, needed for \(what()).", path: path, symbol: name, key: key)
        }
        let all = arguments + (try copy(data, into: live))
        return try function.invoke(all, on: &live.stack)
    }

    /// Whether the guest exports `name` (an optional call: update, state).
    func exports(_ name: String) -> Bool { module.exports.contains { $0.name == name } }

    /// The live instance, made now when there is none.
    private func instance() throws(GraftError) -> Live {
        if let live { return live }
        // Until the new instance's memory is known (a module's start function may already call imports).
        call.memory = nil
        let store = Store(engine: engine)
        store.resourceLimiter = MemoryCap(bytes: limits.memory ?? (4 << 30))
        store.fuel = Fuel(remaining: limits.fuel)
        let log: @Sendable (Logger.Level, String) -> Void = { [weak self] level, line in self?.log(level, line) }
        var imports = WasmImports(call: call, log: log, maximumValue: limits.output)
        // Closed on every path: with the instance that holds it, or here when there is none.
        let folders = grants.isEmpty ? nil : try WasmFolders(grants: grants, call: call)
        imports.folders = folders
        let linked: Imports
        do {
            linked = try imports.make(for: module, in: store)
        } catch {
            throw GraftError(.wasmImportUnknown, "\(path) cannot start: \(error.message).", path: path)
        }
        do {
            let instance = try module.instantiate(store: store, imports: linked)
            guard case .memory(let memory) = instance.export("memory") else {
                throw GraftError(.entrySymbolMissing, "\(path) exports no memory named 'memory'.", path: path, symbol: "memory")
            }
            call.memory = memory
            // A reactor (clang's -mexec-model=reactor) sets up its C library here.
            var stack = ExecutionStack(engine: engine)
            if let initialize = instance.exports[function: "_initialize"] { _ = try initialize.invoke([], on: &stack) }
            // Every instance starts as the first did (a graft.h plugin's bridge sets itself up there).
            if described, let entry = instance.exports[function: "graft_entry"] {
                call.reset(limit: limits.output)
                guard case .i32(let started) = try entry.invoke([], on: &stack).first, started != 0 else {
                    throw GraftError(.pluginInitFailed, "\(path): graft_entry answered 0 in a fresh instance (it could not start again).", path: path, symbol: "graft_entry")
                }
                store.fuel = Fuel(remaining: limits.fuel)
            }
            let made = Live(store: store, instance: instance, memory: memory, buffer: instance.exports[function: "graft_buffer"]!, stack: stack)
            made.folders = folders
            live = made
            return made
        } catch let error as GraftError {
            throw error
        } catch {
            throw failure(error, in: "its start", key: nil)
        }
    }

    /// Copies each piece of `data` into one buffer the guest gives
    /// (`graft_buffer`), each followed by a zero byte its length leaves out
    /// (C reads it as a string); their pointers and lengths as arguments.
    private func copy(_ data: [[UInt8]], into live: Live) throws -> [Value] {
        guard !data.isEmpty else { return [] }
        let total = data.reduce(0) { $0 + $1.count + 1 }
        guard total < Int(Int32.max) else { throw GuestFault(message: "its arguments exceed 2 GiB") }
        if total > live.bufferSize {
            guard case .i32(let base) = try live.buffer.invoke([.i32(UInt32(total))], on: &live.stack).first, base != 0 else {
                throw GuestFault(message: "graft_buffer(\(total)) gave no buffer")
            }
            live.bufferBase = base
            live.bufferSize = total
        }
        let base = live.bufferBase
        var arguments: [Value] = []
        arguments.reserveCapacity(data.count * 2)
        var offset = Int(base)
        guard UInt64(base) + UInt64(total) <= UInt64(live.memory.byteCount) else {
            throw GuestFault(message: "its buffer of \(total) bytes at \(base) lies outside its memory of \(live.memory.byteCount) bytes")
        }
        // One pass over the guest's memory: each piece, then its zero byte.
        live.memory.withUnsafeMutableBufferPointer(offset: UInt(base), count: total) { buffer in
            var at = 0
            for piece in data {
                piece.withUnsafeBytes { bytes in
                    if !bytes.isEmpty { UnsafeMutableRawBufferPointer(rebasing: buffer[at..<(at + bytes.count)]).copyMemory(from: bytes) }
                }
                buffer[at + piece.count] = 0
                at += piece.count + 1
            }
        }
        for piece in data {
            arguments += [.i32(UInt32(offset)), .i32(UInt32(piece.count))]
            offset += piece.count + 1
        }
        return arguments
    }

    /// What a failed call is, in the host's words.
    private func failure(_ error: any Error, in what: String, key: String?) -> GraftError {
        let words = (error as? GuestFault)?.message ?? Self.words(of: error)
        let plugin = id.isEmpty ? path : "plugin '\(id)' (\(path))"
        // WasmKit's trap reasons are not public; its words for fuel are stable.
        if words.contains("out of fuel") {
            return GraftError(
                .pluginTimeout, "\(plugin) used all its fuel (\(limits.fuel)) in \(what): an endless loop, or more work than a call may do.",
                path: path, key: key)
        }
        return GraftError(.pluginCrashed, "\(plugin) trapped in \(what): \(words). Its next call runs in a fresh instance.", path: path, key: key)
    }

    /// A trap in a sentence: WasmKit's reason, and the guest functions it
    /// passed through, innermost first ("unreachable, in graft_render").
    /// Host addresses are left out.
    static func words(of error: any Error) -> String {
        let lines = "\(error)".split(separator: "\n")
        guard let first = lines.first else { return "\(error)" }
        let reason = first.hasPrefix("Trap: ") ? first.dropFirst(6) : first
        let functions = lines.dropFirst().compactMap { line -> Substring? in
            guard let name = line.split(separator: " ").last, name != "unknown", !name.hasPrefix("(0x") else { return nil }
            return name
        }
        return functions.isEmpty ? String(reason) : "\(reason), in \(functions.prefix(4).joined(separator: " < "))"
    }

    /// The guest's log lines and standard output, rationed like a child's.
    private func log(_ level: Logger.Level, _ line: String) {
        switch logRate.admit() {
        case .write:
            if let note = logRate.takeNote() { logger.warning("\(id): \(note)") }
            logger.log(level: level, "\(id): \(line.escapingControls)")
        case .drop: break
        case .dropAndSay(let note): logger.warning("\(id): \(note)")
        }
    }
}

/// Refuses memory growth past `bytes`: `memory.grow` then answers -1 to the guest.
private final class MemoryCap: ResourceLimiter {
    let bytes: UInt64
    init(bytes: UInt64) { self.bytes = bytes }
    func limitMemoryGrowth(to desired: Int) throws -> Bool { UInt64(desired) <= bytes }
    func limitTableGrowth(to desired: Int) throws -> Bool { desired <= 1 << 20 }
}
#endif
