#if WebAssembly
import Logging
// `Module.functionType(at:)` (SPI): the declared type of each WASI import, to
// answer it with a stub of the same type.
@_spi(Fuzzing) import WasmKit

/// What the call in progress gathers from the guest's imports: its output,
/// events and an action's answers. Touched only on the calling thread, under
/// its plugin's lock.
final class GuestCall {
    /// The most events, and variables, one call may give: past them the call fails as the guest's fault.
    static let maximumItems = 1024
    /// The longest log line kept (the rest is cut) and the largest JSON value an import takes.
    static let maximumLine = 16 << 10

    var output: [UInt8] = []
    var limit = 0
    var overflowed = false
    var mediaType: String?
    var events: [(event: String, payload: GraftValue?)] = []
    var variables: [String: GraftValue] = [:]
    var result: GraftValue?
    var error: String?
    /// Bytes of JSON the call's events, variables and result took, all together.
    var given = 0
    /// The live instance's memory, set as it is made: an import finds it without a lookup by name.
    var memory: Memory?
    /// What the rules of the guest's folders refused it (`WasmFolders`), the
    /// first few; reported once the call is over, not under its plugin's lock.
    private(set) var denials: [SandboxDenial] = []
    static let maximumDenials = 16

    func deny(_ denial: SandboxDenial) {
        if denials.count < Self.maximumDenials { denials.append(denial) }
    }

    func takeDenials() -> [SandboxDenial] {
        defer { denials.removeAll() }
        return denials
    }

    func reset(limit: Int) {
        given = 0
        output.removeAll(keepingCapacity: true)
        self.limit = limit
        overflowed = false
        mediaType = nil
        events.removeAll()
        variables.removeAll()
        result = nil
        error = nil
    }

    var text: String { String(decoding: output, as: UTF8.self) }
}

/// A guest broke the ABI inside an import (a pointer outside its memory, a
/// payload that is not JSON, `proc_exit`): its call ends as a crash.
struct GuestFault: Error {
    var message: String
}

/// The functions a guest may import (docs/WasmABI.md, "Imports"): the
/// `graft` module, and the part of WASI preview 1 that wasi-libc needs to
/// start, where the guest has no file, no environment, no clock and no
/// network. Nothing else links.
struct WasmImports {
    static let graftModule = "graft"
    static let wasiModule = "wasi_snapshot_preview1"
    /// WASI's errno values the stubs answer.
    static let badFile: UInt32 = 8, notSupported: UInt32 = 52

    let call: GuestCall
    let log: @Sendable (Logger.Level, String) -> Void
    /// The largest JSON value (a payload, a variable, a result) an import takes: the output limit.
    let maximumValue: Int
    /// The folders the guest was granted, if any; their WASI functions replace the stubs.
    var folders: WasmFolders? = nil

    /// The guest's environment (`WasmGrants.environment`).
    var environment: [String] { folders?.grants.environment ?? [] }

    /// The imports `module` asks for, made in `store`; throws a sentence
    /// naming the first one Graft does not offer.
    func make(for module: Module, in store: Store) throws(GuestFault) -> Imports {
        var imports = Imports()
        for wanted in module.imports {
            guard case .function(let typeIndex) = wanted.descriptor else {
                throw GuestFault(message: "it imports '\(wanted.module).\(wanted.name)', which is not a function; Graft gives a guest functions only")
            }
            let function: Function?
            switch wanted.module {
            case Self.graftModule: function = graft(wanted.name, store: store)
            case Self.wasiModule: function = module.functionType(at: typeIndex).flatMap { wasi(wanted.name, type: $0, store: store) }
            default: function = nil
            }
            guard let function else {
                throw GuestFault(message: "it imports '\(wanted.module).\(wanted.name)', which Graft does not offer (docs/WasmABI.md lists what it does)")
            }
            imports.define(module: wanted.module, name: wanted.name, function)
        }
        return imports
    }

    private func graft(_ name: String, store: Store) -> Function? {
        let call = self.call, log = self.log
        switch name {
        case "write":
            // Raw: the hottest import (every render writes), with no arrays made per call.
            return Function(store: store, parameters: [.i32, .i32], results: [.i32]) { caller, args, results in
                guard case .i32(let start) = args[0], case .i32(let count) = args[1] else { throw GuestFault(message: "an import got a non-i32 argument") }
                let memory = try call.memory ?? Self.memory(of: caller)
                guard UInt64(start) + UInt64(count) <= UInt64(memory.byteCount) else {
                    throw GuestFault(message: "it passed \(count) bytes at \(start), outside its memory of \(memory.byteCount) bytes")
                }
                // Only what fits is copied, straight onto the output: a guest may name its whole memory.
                let room = max(0, call.limit - call.output.count), taken = min(Int(count), room)
                if taken > 0 { memory.withUnsafeBufferPointer(offset: UInt(start), count: taken) { call.output.append(contentsOf: $0) } }
                if Int(count) > room { call.overflowed = true }
                results[0] = .i32(Int(count) > room ? 0 : 1)
            }
        case "set_media_type":
            return Function(store: store, parameters: [.i32, .i32]) { caller, args in
                call.mediaType = try Self.text(caller, args[0], args[1], atMost: 256)
                return []
            }
        case "emit":
            return Function(store: store, parameters: [.i32, .i32, .i32, .i32]) { caller, args in
                guard call.events.count < GuestCall.maximumItems else {
                    throw GuestFault(message: "it emitted more than \(GuestCall.maximumItems) events in one call")
                }
                let event = try Self.text(caller, args[0], args[1], atMost: GuestCall.maximumLine)
                call.events.append((event, try json(caller, args[2], args[3], what: "the payload of event '\(event)'")))
                return []
            }
        case "log":
            return Function(store: store, parameters: [.i32, .i32, .i32]) { caller, args in
                guard case .i32(let level) = args[0] else { return [] }
                log(Logger.Level(graftLevel: level), try Self.text(caller, args[1], args[2], atMost: GuestCall.maximumLine, cutting: true))
                return []
            }
        case "set_variable":
            return Function(store: store, parameters: [.i32, .i32, .i32, .i32]) { caller, args in
                let name = try Self.text(caller, args[0], args[1], atMost: GuestCall.maximumLine)
                guard call.variables.count < GuestCall.maximumItems || call.variables[name] != nil else {
                    throw GuestFault(message: "it set more than \(GuestCall.maximumItems) variables in one call")
                }
                call.variables[name] = try json(caller, args[2], args[3], what: "variable '\(name)'") ?? .null
                return []
            }
        case "set_result":
            return Function(store: store, parameters: [.i32, .i32]) { caller, args in
                call.result = try json(caller, args[0], args[1], what: "the action's result")
                return []
            }
        case "set_error":
            return Function(store: store, parameters: [.i32, .i32]) { caller, args in
                call.error = try Self.text(caller, args[0], args[1], atMost: GuestCall.maximumLine, cutting: true)
                return []
            }
        default:
            return nil
        }
    }

    /// WASI: standard output and error go to the host's log; there are no
    /// arguments and no environment but `GRAFT_DATA_DIR`; the granted folders
    /// (`WasmFolders`), if any; every other call answers `ENOSYS` (or `EBADF`).
    private func wasi(_ name: String, type: FunctionType, store: Store) -> Function? {
        let log = self.log
        if name != "fd_write", let folders, WasmFolders.spans[name] != nil { return folders.function(name, type: type, store: store) }
        switch name {
        case "fd_write":
            guard type == FunctionType(parameters: [.i32, .i32, .i32, .i32], results: [.i32]) else { return nil }
            return Function(store: store, type: type) { [folders] caller, args in
                // The folders' descriptors start at 3 (their bridge has no standard streams).
                guard case .i32(let fd) = args[0], fd == 1 || fd == 2 else {
                    guard let folders else { return [.i32(Self.badFile)] }
                    return try folders.call("fd_write", args, caller)
                }
                // At most a line's worth a call: the C library writes the rest again.
                var written: [UInt8] = []
                let vectors = try Self.bytes(caller, args[1], Self.times8(args[2]), atMost: 8 * 64)
                for index in stride(from: 0, to: vectors.count - 7, by: 8) where written.count < GuestCall.maximumLine {
                    let base = Self.word(vectors, index), length = Self.word(vectors, index + 4)
                    written += try Self.bytes(caller, .i32(base), .i32(length), atMost: GuestCall.maximumLine - written.count)
                }
                for line in String(decoding: written, as: UTF8.self).split(separator: "\n") {
                    log(fd == 2 ? .warning : .info, String(line))
                }
                try Self.store(UInt32(written.count), at: args[3], caller)
                return [.i32(0)]
            }
        case "proc_exit":
            return Function(store: store, type: type) { _, args in
                throw GuestFault(message: "the plugin called proc_exit(\(args.first.map { "\($0)" } ?? ""))")
            }
        case "environ_sizes_get", "args_sizes_get":
            guard type == FunctionType(parameters: [.i32, .i32], results: [.i32]) else { return nil }
            let strings = name == "environ_sizes_get" ? environment : []
            return Function(store: store, type: type) { caller, args in
                try Self.store(UInt32(strings.count), at: args[0], caller)
                try Self.store(UInt32(strings.reduce(0) { $0 + $1.utf8.count + 1 }), at: args[1], caller)
                return [.i32(0)]
            }
        case "environ_get", "args_get":
            guard type == FunctionType(parameters: [.i32, .i32], results: [.i32]) else { return nil }
            let strings = name == "environ_get" ? environment : []
            return Function(store: store, type: type) { caller, args in
                // A list of pointers at the first argument, the strings they point to at the second.
                guard case .i32(let list) = args[0], case .i32(var text) = args[1] else { return [.i32(Self.badFile)] }
                for (index, string) in strings.enumerated() {
                    try Self.store(text, at: .i32(list &+ UInt32(index * 4)), caller)
                    let bytes = Array(string.utf8) + [0]
                    try Self.write(bytes, at: text, caller)
                    text &+= UInt32(bytes.count)
                }
                return [.i32(0)]
            }
        case "random_get":
            guard type == FunctionType(parameters: [.i32, .i32], results: [.i32]) else { return nil }
            return Function(store: store, type: type) { caller, args in
                guard case .i32(let pointer) = args[0], case .i32(let count) = args[1],
                    case .memory(let memory) = caller.instance?.export("memory")
                else { return [.i32(Self.notSupported)] }
                // Bounds first: the count is the guest's.
                guard UInt64(pointer) + UInt64(count) <= UInt64(memory.byteCount) else { throw GuestFault(message: "random_get past its memory") }
                guard count > 0 else { return [.i32(0)] }
                memory.withUnsafeMutableBufferPointer(offset: UInt(pointer), count: Int(count)) { buffer in
                    var generator = SystemRandomNumberGenerator()
                    for index in buffer.indices { buffer[index] = UInt8.random(in: 0...255, using: &generator) }
                }
                return [.i32(0)]
            }
        case "fd_close", "fd_seek", "fd_fdstat_get", "fd_prestat_get", "fd_prestat_dir_name", "fd_read", "fd_filestat_get":
            guard type.results == [.i32] else { return nil }
            return Function(store: store, type: type) { _, _ in [.i32(Self.badFile)] }
        default:
            guard type.results == [.i32] else { return nil }
            return Function(store: store, type: type) { _, _ in [.i32(Self.notSupported)] }
        }
    }

    // MARK: The guest's memory

    /// A copy of `length` bytes at `pointer` in the caller's memory, or of
    /// the first `atMost` of them; a range outside it is the guest's fault.
    static func bytes(_ caller: borrowing Caller, _ pointer: Value, _ length: Value, atMost limit: Int) throws(GuestFault) -> [UInt8] {
        guard case .i32(let start) = pointer, case .i32(let count) = length else { throw GuestFault(message: "an import got a non-i32 argument") }
        let memory = try memory(of: caller)
        guard UInt64(start) + UInt64(count) <= UInt64(memory.byteCount) else {
            throw GuestFault(message: "it passed \(count) bytes at \(start), outside its memory of \(memory.byteCount) bytes")
        }
        return try read(memory, at: start, count: UInt32(min(Int(count), max(0, limit))))
    }

    /// The caller's memory, the export the ABI requires.
    static func memory(of caller: borrowing Caller) throws(GuestFault) -> Memory {
        guard case .memory(let memory) = caller.instance?.export("memory") else { throw GuestFault(message: "the module exports no memory") }
        return memory
    }

    static func read(_ memory: Memory, at start: UInt32, count: UInt32) throws(GuestFault) -> [UInt8] {
        guard UInt64(start) + UInt64(count) <= UInt64(memory.byteCount) else {
            throw GuestFault(message: "it passed \(count) bytes at \(start), outside its memory of \(memory.byteCount) bytes")
        }
        guard count > 0 else { return [] }
        return memory.withUnsafeBufferPointer(offset: UInt(start), count: Int(count)) { Array($0) }
    }

    static func write(_ bytes: [UInt8], at start: UInt32, _ caller: borrowing Caller) throws(GuestFault) {
        guard case .memory(let memory) = caller.instance?.export("memory") else { throw GuestFault(message: "the module exports no memory") }
        try write(bytes, at: start, into: memory)
    }

    static func write(_ bytes: [UInt8], at start: UInt32, into memory: Memory) throws(GuestFault) {
        guard UInt64(start) + UInt64(bytes.count) <= UInt64(memory.byteCount) else {
            throw GuestFault(message: "its buffer of \(bytes.count) bytes at \(start) lies outside its memory of \(memory.byteCount) bytes")
        }
        guard !bytes.isEmpty else { return }
        memory.withUnsafeMutableBufferPointer(offset: UInt(start), count: bytes.count) { $0.copyBytes(from: bytes) }
    }

    private static func store(_ value: UInt32, at pointer: Value, _ caller: borrowing Caller) throws(GuestFault) {
        guard case .i32(let start) = pointer else { throw GuestFault(message: "an import got a non-i32 argument") }
        try write(withUnsafeBytes(of: value.littleEndian) { Array($0) }, at: start, caller)
    }

    /// Text the guest passed: at most `limit` bytes, cut there when `cutting`, else refused past it.
    private static func text(
        _ caller: borrowing Caller, _ pointer: Value, _ length: Value, atMost limit: Int, cutting: Bool = false
    ) throws(GuestFault) -> String {
        let bytes = try bytes(caller, pointer, length, atMost: limit + 1)
        if bytes.count > limit, !cutting { throw GuestFault(message: "it passed a text longer than \(limit) bytes") }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }

    /// JSON the guest passed; nil for no bytes (no value). All of a call's
    /// values together may take at most `maximumValue` bytes (the output limit).
    private func json(_ caller: borrowing Caller, _ pointer: Value, _ length: Value, what: String) throws(GuestFault) -> GraftValue? {
        let room = max(0, maximumValue - call.given)
        let bytes = try Self.bytes(caller, pointer, length, atMost: room + 1)
        if bytes.count > room {
            throw GuestFault(message: "\(what) takes its call past \(maximumValue) bytes of events, variables and results")
        }
        call.given += bytes.count
        guard !bytes.isEmpty else { return nil }
        do {
            return try GraftValue(json: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw GuestFault(message: "\(what) is not JSON: \(error.message)")
        }
    }

    private static func times8(_ count: Value) -> Value {
        guard case .i32(let count) = count else { return count }
        return .i32(count > UInt32.max / 8 ? UInt32.max : count * 8)
    }

    private static func word(_ bytes: [UInt8], _ index: Int) -> UInt32 {
        UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
    }
}
#endif
