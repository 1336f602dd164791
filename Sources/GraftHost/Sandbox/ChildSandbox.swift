import CGraftSandbox
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The child's side of the sandbox: every Graft child (scanner, runner,
/// conformance test) enters it first thing, before it says hello and long
/// before any plugin byte is mapped (`ChildMain.main`). What it managed
/// to apply goes to the host with the hello, and so does the seccomp
/// filter's listener, which the child then closes: only the host can answer
/// the filter, so only the host hears of what it refused.
package enum ChildSandbox {
    /// What a child applied, as its hello tells the host.
    package struct Status: Sendable, Equatable {
        package var landlockABI: Int
        var files: Bool
        var network: Bool
        var scopes: Bool
        var seccomp: Bool
        /// Why a part is missing ("" when none is).
        package var missing: String
        /// The namespaces' parts (`graft_sandbox_enter`'s step 0): a tmpfs
        /// private folder, an empty network, IPC that is not its host's, a /proc that
        /// shows it alone; the user it runs as; why a part does not hold ("").
        var privateTmpfs = false
        var networkNamespace = false
        var ipcNamespace = false
        var ownProc = false
        var user: UInt32 = 0
        var degraded = ""

        static let none = Status(landlockABI: 0, files: false, network: false, scopes: false, seccomp: false, missing: "")

        /// Whether every part is in force.
        package var isComplete: Bool { missing.isEmpty && files && seccomp }
    }

    private static let entered = Atomic<Bool>(false)

    /// Whether this process is a sandboxed child: it then maps plugins from
    /// private copies in memory (`PluginLoader.ImageSource.memory`), since
    /// Landlock refuses to open a plugin's file again by any path, its
    /// descriptor's `/proc/self/fd` name included.
    static var isEntered: Bool { entered.load(ordering: .relaxed) }

    /// How a child maps the file it was sent: from memory when sandboxed,
    /// else through the descriptor's name or a copy (a hot-swapping host).
    static func mapping(copy: Bool) -> PluginLoader.ImageSource {
        isEntered ? .memory : copy ? .copy : .descriptorName
    }

    /// Applies `policy` to this process; returns what was applied and the
    /// listener's descriptor (-1 without one).
    static func enter(_ policy: SandboxPolicy) -> (Status, listener: Int32) {
        var result = graft_sandbox_status()
        let library = CStrings(policy.libraryFolders), read = CStrings(policy.readPaths), write = CStrings(policy.writeFolders)
        let ports = policy.connectPorts
        let privateFolder = policy.privateFolder.map { strdup($0) }, dataFolder = policy.dataFolder.map { strdup($0) }
        defer {
            free(privateFolder ?? nil)
            free(dataFolder ?? nil)
        }
        _ = ports.withUnsafeBufferPointer { ports in
            policy.filter.withCString { filter in
                library.withPointers { library in
                    read.withPointers { read in
                        write.withPointers { write in
                            var cPolicy = graft_sandbox_policy(
                                library_folders: library, read_paths: read, write_folders: write,
                                connect_ports: ports.baseAddress, connect_port_count: ports.count, any_network: policy.anyNetwork,
                                max_open_files: policy.maxOpenFiles, max_file_size: policy.maxFileSize,
                                filter: policy.filter.isEmpty ? nil : filter, private_folder: privateFolder ?? nil,
                                private_size: policy.privateSize, private_files: policy.privateFiles, data_folder: dataFolder ?? nil,
                                isolate_network: policy.isolatesNetwork, run_as_user: policy.runAsUser, run_as_group: policy.runAsGroup,
                                network_fd: policy.joinsKeptNetwork ? SandboxPolicy.keptNetworkDescriptor : -1,
                                user_fd: policy.joinsKeptNetwork && policy.keptUserNamespace ? SandboxPolicy.keptUserDescriptor : -1,
                                ipc_fd: policy.joinsKeptNetwork && policy.joinsKeptIPC ? SandboxPolicy.keptIPCDescriptor : -1)
                            return graft_sandbox_enter(&cPolicy, &result)
                        }
                    }
                }
            }
        }
        let status = Status(result)
        entered.store(result.landlock_files, ordering: .relaxed)
        // Where its plugin finds its data folder: bound into the private folder, or through a descriptor.
        let dataPath = withUnsafeBytes(of: result.data_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !dataPath.isEmpty { setenv("GRAFT_DATA_DIR", dataPath, 1) }
        return (status, result.listener)
    }
}

/// NULL-terminated C string arrays for the policy, alive while the closure runs.
private struct CStrings {
    let strings: [String]
    init(_ strings: [String]) { self.strings = strings }

    func withPointers<Result>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        var pointers = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        return pointers.withUnsafeMutableBufferPointer { body(UnsafePointer($0.baseAddress!)) }
    }
}

extension WireWriter {
    mutating func sandboxStatus(_ status: ChildSandbox.Status?) {
        bool(status != nil)
        guard let status else { return }
        u16(UInt16(clamping: status.landlockABI))
        bool(status.files)
        bool(status.network)
        bool(status.scopes)
        bool(status.seccomp)
        string(status.missing)
        bool(status.privateTmpfs)
        bool(status.networkNamespace)
        bool(status.ipcNamespace)
        bool(status.ownProc)
        u32(status.user)
        string(status.degraded)
    }
}

extension WireReader {
    mutating func sandboxStatus() throws(Wire.Violation) -> ChildSandbox.Status? {
        guard try bool() else { return nil }
        var status = ChildSandbox.Status(
            landlockABI: Int(try u16()), files: try bool(), network: try bool(), scopes: try bool(), seccomp: try bool(),
            missing: try string())
        status.privateTmpfs = try bool()
        status.networkNamespace = try bool()
        status.ipcNamespace = try bool()
        status.ownProc = try bool()
        status.user = try u32()
        status.degraded = try string()
        return status
    }
}
