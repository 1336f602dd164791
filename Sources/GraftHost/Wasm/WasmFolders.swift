import GraftSupport

#if WebAssembly
import WASI
import WasmKit
import WasmKitWASI

#if canImport(Glibc)
import Glibc
#endif

/// What a `.wasm` plugin is given of the host's files: the folders its host
/// grants it (`SandboxSettings.grants`), each a WASI preopened folder. A data
/// folder is `/data` to the guest (and `GRAFT_DATA_DIR` says so); a `read:`
/// folder keeps its path and is read-only. Network grants give nothing: WASI
/// preview 1 cannot open a connection.
struct WasmGrants: Sendable, Hashable {
    static let dataPath = "/data"

    var dataFolder: String?
    var dataLimit: UInt64 = SandboxSettings.defaultDataFolderLimit
    var readFolders: [String] = []
    /// Granted `read:` folders not given: the root, or under /proc, /sys or
    /// /dev, where a guest in the host's process would read the host itself
    /// (its memory through /proc/self/mem, its environment).
    var withheld: [String] = []
    /// The most files and folders a guest may hold open at once (each is one of the host's descriptors).
    var maxOpenFiles = 64

    var isEmpty: Bool { dataFolder == nil && readFolders.isEmpty }

    static func reachesHost(_ folder: String) -> Bool {
        folder == "/" || ["/proc", "/sys", "/dev"].contains { folder == $0 || folder.hasPrefix($0 + "/") }
    }

    /// The guest's environment: where its data folder is, if it has one.
    var environment: [String] { dataFolder == nil ? [] : ["GRAFT_DATA_DIR=\(Self.dataPath)"] }
}

extension WasmGrants {
    /// What `permissions` give a guest: `dataFolder` for a data folder (the
    /// caller's to make or find), and each `read:` folder, unless it reaches
    /// the host (`withheld`).
    init(_ permissions: [Permission], dataFolder: String?, dataLimit: UInt64 = SandboxSettings.defaultDataFolderLimit) {
        for permission in permissions {
            switch permission {
            case .dataFolder:
                self.dataFolder = dataFolder
                self.dataLimit = dataLimit
            case .read(let folder):
                if Self.reachesHost(FilePaths.realPath(folder) ?? folder) {
                    withheld.append(folder)
                } else if !readFolders.contains(folder) {
                    readFolders.append(folder)
                }
            case .connect, .anyNetwork:
                break
            }
        }
    }
}

extension SandboxSettings {
    /// What the WebAssembly plugin `id` is given; makes its data folder.
    func wasmGrants(forPlugin id: String) throws(GraftError) -> WasmGrants {
        let granted = grants[id] ?? []
        let folder = granted.contains(.dataFolder) ? try dataFolder(forPlugin: id) : nil
        return WasmGrants(granted, dataFolder: folder, dataLimit: dataFolderLimit(forPlugin: id))
    }
}

/// A granted guest's files: WasmKit's WASI host file system (which resolves
/// each path inside its preopened folder, one component at a time, refusing
/// `..` past it and symbolic links out of it), with Graft's rules around
/// every call:
/// - every pointer and length the guest passes is checked against its memory
///   first (WasmKit's WASI stops the process on an access out of bounds);
/// - nothing under a `read:` folder is written, made, removed or renamed
///   (`sandbox_denied`);
/// - the data folder stays under its limit (`plugin_storage_limit`), measured
///   as the native sandbox measures it;
/// - at most `maxOpenFiles` descriptors are open.
/// Closed with its instance: `deinit` closes the bridge and every descriptor
/// the guest left open.
final class WasmFolders {
    private let bridge: WASIBridgeToHost
    private let functions: [String: WASIHostFunction<Memory>]
    let grants: WasmGrants
    private let call: GuestCall
    /// Every descriptor the guest holds: its path as the guest names it, and what it lies in.
    private var open: [UInt32: Entry] = [:]
    /// The data folder's size when last measured, and what the guest may have added since.
    private var measured: UInt64?
    private var added: UInt64 = 0

    private struct Entry {
        var path: String
        /// Where it is on the host's disk (`..` and links left as the guest wrote them).
        var hostPath: String
        var readOnly: Bool
        var data: Bool
        var preopened = false
    }

    init(grants: WasmGrants, call: GuestCall) throws(GraftError) {
        self.grants = grants
        self.call = call
        var preopens: [WASIBridgeToHost.Preopen] = []
        var entries: [Entry] = []
        if let data = grants.dataFolder {
            preopens.append(.init(guestPath: WasmGrants.dataPath, hostPath: data))
            entries.append(Entry(path: WasmGrants.dataPath, hostPath: data, readOnly: false, data: true, preopened: true))
        }
        // A granted folder that is not there is not given (as the native sandbox skips it).
        for folder in grants.readFolders where Self.isFolder(folder) {
            preopens.append(.init(guestPath: folder, hostPath: folder))
            entries.append(Entry(path: folder, hostPath: folder, readOnly: true, data: false, preopened: true))
        }
        do {
            // No standard streams: the guest's output goes to the log (`WasmImports`), never to the host's descriptors.
            bridge = try WASIBridgeToHost(fileSystem: .host().withPreopens(preopens))
        } catch {
            throw GraftError(.permissionDenied, "could not open the folders granted to a WebAssembly plugin: \(error).")
        }
        functions = bridge.hostFunctions(capabilities: [.stdio, .fileSystem], stubUnlinked: false)
        for (index, entry) in entries.enumerated() { open[UInt32(3 + index)] = entry }
    }

    deinit {
        try? bridge.close()
    }

    private static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The WASI function `name` over these folders, or nil when Graft does
    /// not give it (`fd_renumber` could move a descriptor past the rules).
    func function(_ name: String, type: FunctionType, store: Store) -> Function? {
        guard let base = functions[name], base.type == type, Self.spans[name] != nil else { return nil }
        return Function(store: store, type: type) { caller, arguments in try self.call(name, arguments, caller) }
    }

    /// Calls the WASI function `name` (one `function` gives) for the guest.
    func call(_ name: String, _ arguments: [Value], _ caller: borrowing Caller) throws -> [Value] {
        guard let base = functions[name], let spans = Self.spans[name] else { return [.i32(UInt32(Preview1.ENOSYS))] }
        guard case .memory(let memory) = caller.instance?.export("memory") else { throw GuestFault(message: "the module exports no memory") }
        return try run(name, base, spans, arguments, memory)
    }

    /// Runs `name` once its pointers are in bounds and the rules allow it.
    private func run(_ name: String, _ base: WASIHostFunction<Memory>, _ spans: [Span], _ arguments: [Value], _ memory: Memory) throws -> [Value] {
        var written: UInt64 = 0
        for span in spans { written += try Self.check(span, arguments, memory) }
        if let refused = try refusal(name, arguments, memory, written: written) { return [.i32(refused)] }
        let results = try base.implementation(memory, arguments)
        guard case .i32(0) = results.first else { return results }
        switch name {
        case "path_open":
            let fd = try Self.word(at: Self.u32(arguments[8]), memory)
            let parent = open[Self.u32(arguments[0])]
            let path = try Self.string(arguments[2], arguments[3], memory)
            open[fd] = Entry(
                path: (parent?.path ?? "") + "/" + path, hostPath: (parent?.hostPath ?? "") + "/" + path, readOnly: parent?.readOnly ?? true,
                data: parent?.data ?? false)
        case "fd_close":
            open[Self.u32(arguments[0])] = nil
        default:
            break
        }
        return results
    }

    // MARK: The rules

    /// Why the call may not run, as the errno the guest gets, or nil.
    private func refusal(_ name: String, _ arguments: [Value], _ memory: Memory, written: UInt64) throws -> UInt32? {
        func entry(_ index: Int) -> Entry? { open[Self.u32(arguments[index])] }
        func path(_ fd: Int, _ pointer: Int, _ length: Int) throws -> String {
            (entry(fd)?.path ?? "?") + "/" + (try Self.string(arguments[pointer], arguments[length], memory))
        }
        switch name {
        case "path_open":
            guard let parent = entry(0) else { return nil }
            if open.values.count(where: { !$0.preopened }) >= grants.maxOpenFiles { return Preview1.EMFILE }
            let oflags = Self.u32(arguments[4]), rights = Self.u64(arguments[5]), fdflags = Self.u32(arguments[7])
            let creates = oflags & Preview1.create != 0
            let writes = creates || oflags & Preview1.truncate != 0 || fdflags & Preview1.append != 0 || rights & Preview1.writeRights != 0
            if writes, parent.readOnly { return deny(name, "open \(try path(0, 2, 3)) to write") }
            // WasmKit opens without O_NONBLOCK: a FIFO or a device in a granted folder would hold the host's thread, where fuel cannot reach.
            var status = stat()
            let target = parent.hostPath + "/" + String(decoding: try WasmImports.read(memory, at: Self.u32(arguments[2]), count: Self.u32(arguments[3])), as: UTF8.self)
            if stat(target, &status) == 0, ![S_IFREG, S_IFDIR].contains(status.st_mode & S_IFMT) {
                return deny(name, "open \(try path(0, 2, 3)), which is not a file or a folder", errno: Preview1.EACCES)
            }
            if creates, parent.data { return try room(4096, name, "create \(try path(0, 2, 3))") }
        case "path_create_directory", "path_remove_directory", "path_unlink_file", "path_filestat_set_times":
            let act = ["path_create_directory": "make", "path_remove_directory": "remove", "path_unlink_file": "remove"][name] ?? "change the times of"
            if entry(0)?.readOnly == true { return deny(name, "\(act) \(try path(0, 1, 2))") }
            if name == "path_create_directory", entry(0)?.data == true { return try room(4096, name, "make \(try path(0, 1, 2))") }
        case "path_symlink":
            if entry(2)?.readOnly == true { return deny(name, "make a link at \(try path(2, 3, 4))") }
            if entry(2)?.data == true { return try room(4096, name, "make a link at \(try path(2, 3, 4))") }
        case "path_link":
            // A hard link from a read-only folder into the data folder would make that file writable.
            if entry(0)?.readOnly == true || entry(4)?.readOnly == true { return deny(name, "link \(try path(0, 2, 3)) to \(try path(4, 5, 6))") }
            if entry(4)?.data == true { return try room(4096, name, "link \(try path(4, 5, 6))") }
        case "path_rename":
            if entry(0)?.readOnly == true || entry(3)?.readOnly == true { return deny(name, "rename \(try path(0, 1, 2)) to \(try path(3, 4, 5))") }
        case "fd_write", "fd_pwrite", "fd_allocate", "fd_filestat_set_size", "fd_filestat_set_times":
            guard let target = entry(0) else { return nil }
            if target.readOnly { return deny(name, "write \(target.path)") }
            let grows = switch name {
            case "fd_allocate": Self.u64(arguments[2])
            case "fd_filestat_set_size": Self.u64(arguments[1])
            case "fd_filestat_set_times": UInt64(0)
            default: written
            }
            if target.data, grows > 0 { return try room(grows, name, "write \(target.path)") }
        default:
            break
        }
        return nil
    }

    /// Whether the data folder has room for `bytes` more; measures it again
    /// once what the guest may have added since the last look could fill it.
    private func room(_ bytes: UInt64, _ name: String, _ act: String) throws -> UInt32? {
        guard let folder = grants.dataFolder else { return nil }
        let limit = grants.dataLimit
        if measured == nil || measured! &+ added &+ bytes > limit {
            measured = FolderQuota.usage(of: folder, upTo: limit).bytes
            added = 0
        }
        guard measured! &+ bytes <= limit else {
            return deny(name, "\(act): its data folder holds \(FolderQuota.size(measured!)), its limit is \(FolderQuota.size(limit))", code: .pluginStorageLimit, errno: Preview1.EDQUOT)
        }
        added += bytes
        return nil
    }

    private func deny(_ name: String, _ act: String, code: GraftError.Code = .sandboxDenied, errno: UInt32 = Preview1.EROFS) -> UInt32 {
        call.deny(SandboxDenial(call: name, act: act, code: code))
        return errno
    }

    // MARK: The guest's pointers

    /// Where a function reads or writes the guest's memory.
    enum Span {
        /// A value of `bytes` at the pointer argument.
        case fixed(Int, bytes: UInt64)
        /// Bytes at a pointer argument, as many as a length argument says.
        case sized(Int, Int)
        /// A list of (pointer, length) buffers, as many as a count argument says.
        case vectors(Int, Int)
    }

    /// The functions given, and what each touches in the guest's memory (WASI preview 1's signatures).
    static let spans: [String: [Span]] = [
        "fd_advise": [], "fd_allocate": [], "fd_close": [], "fd_datasync": [], "fd_sync": [], "fd_fdstat_set_flags": [],
        "fd_fdstat_set_rights": [], "fd_filestat_set_size": [], "fd_filestat_set_times": [],
        "fd_fdstat_get": [.fixed(1, bytes: 24)], "fd_filestat_get": [.fixed(1, bytes: 64)], "fd_prestat_get": [.fixed(1, bytes: 8)],
        "fd_prestat_dir_name": [.sized(1, 2)],
        "fd_read": [.vectors(1, 2), .fixed(3, bytes: 4)], "fd_write": [.vectors(1, 2), .fixed(3, bytes: 4)],
        "fd_pread": [.vectors(1, 2), .fixed(4, bytes: 4)], "fd_pwrite": [.vectors(1, 2), .fixed(4, bytes: 4)],
        "fd_readdir": [.sized(1, 2), .fixed(4, bytes: 4)], "fd_seek": [.fixed(3, bytes: 8)], "fd_tell": [.fixed(1, bytes: 8)],
        "path_create_directory": [.sized(1, 2)], "path_remove_directory": [.sized(1, 2)], "path_unlink_file": [.sized(1, 2)],
        "path_filestat_get": [.sized(2, 3), .fixed(4, bytes: 64)], "path_filestat_set_times": [.sized(2, 3)],
        "path_link": [.sized(2, 3), .sized(5, 6)], "path_open": [.sized(2, 3), .fixed(8, bytes: 4)],
        "path_readlink": [.sized(1, 2), .sized(3, 4), .fixed(5, bytes: 4)], "path_rename": [.sized(1, 2), .sized(4, 5)],
        "path_symlink": [.sized(0, 1), .sized(3, 4)],
    ]

    /// The longest path a denial names, and the most buffers one call may name.
    static let maximumPath: UInt32 = 4096
    static let maximumVectors: UInt32 = 1024

    /// Checks that `span` lies in `memory`, with room for WasmKit's
    /// alignment of what it writes (up to 8 bytes); the bytes a list of
    /// buffers holds. Past it, the guest's call fails as a crash.
    private static func check(_ span: Span, _ arguments: [Value], _ memory: Memory) throws -> UInt64 {
        let size = UInt64(memory.byteCount)
        func inside(_ pointer: UInt32, _ count: UInt64, slack: UInt64 = 8) throws {
            guard UInt64(pointer) + count + slack <= size else {
                throw GuestFault(message: "it passed \(count) bytes at \(pointer) to a WASI call, outside its memory of \(size) bytes")
            }
        }
        switch span {
        case .fixed(let pointer, let bytes):
            try inside(u32(arguments[pointer]), bytes)
            return 0
        case .sized(let pointer, let length):
            try inside(u32(arguments[pointer]), UInt64(u32(arguments[length])), slack: 0)
            return 0
        case .vectors(let pointer, let count):
            let base = u32(arguments[pointer]), count = u32(arguments[count])
            guard count <= maximumVectors else { throw GuestFault(message: "it passed \(count) buffers to one WASI call; the most is \(maximumVectors)") }
            try inside(base, UInt64(count) * 8)
            var total: UInt64 = 0
            for index in 0..<count {
                let start = try word(at: base + index * 8, memory), length = try word(at: base + index * 8 + 4, memory)
                try inside(start, UInt64(length), slack: 0)
                total += UInt64(length)
            }
            return total
        }
    }

    private static func string(_ pointer: Value, _ length: Value, _ memory: Memory) throws -> String {
        // For a sentence only: a long path is cut.
        let bytes = try WasmImports.read(memory, at: u32(pointer), count: min(u32(length), maximumPath))
        return String(decoding: bytes, as: UTF8.self).escapingControls
    }

    private static func word(at pointer: UInt32, _ memory: Memory) throws -> UInt32 {
        let bytes = try WasmImports.read(memory, at: pointer, count: 4)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// WASI preview 1's numbers this file needs (its witx: errno, oflags, fdflags, rights).
    enum Preview1 {
        static let EDQUOT: UInt32 = 19, EMFILE: UInt32 = 33, ENOSYS: UInt32 = 52, EROFS: UInt32 = 69
        static let create: UInt32 = 1 << 0, truncate: UInt32 = 1 << 3
        static let append: UInt32 = 1 << 0
        static let EACCES: UInt32 = 2
        /// fd_write, fd_allocate, fd_filestat_set_size.
        static let writeRights: UInt64 = 1 << 6 | 1 << 8 | 1 << 22
    }

    private static func u32(_ value: Value) -> UInt32 { if case .i32(let value) = value { value } else { 0 } }
    private static func u64(_ value: Value) -> UInt64 { if case .i64(let value) = value { value } else { 0 } }
}
#endif
