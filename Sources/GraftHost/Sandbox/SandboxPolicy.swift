import CGraftSandbox
import CGraftSystem
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// What one child process may touch, as its host decides it: the system's and
/// the Swift runtime's libraries to read and map, a few files to read, folders
/// to write (the child's private temporary folder, a plugin's data folder),
/// TCP ports to connect to. Everything else is refused by the kernel
/// (`graft_sandbox_enter`). It travels to the child as arguments
/// (`arguments`, read back by `init(arguments:)`).
package struct SandboxPolicy: Sendable, Hashable {
    var libraryFolders: [String]
    var readPaths: [String]
    package var writeFolders: [String]
    var connectPorts: [UInt16]
    var anyNetwork: Bool
    var maxOpenFiles: UInt64
    var maxFileSize: UInt64
    /// The seccomp filter the host built for this policy (`SandboxFilter`),
    /// a BPF program in hexadecimal; empty: the child builds it.
    var filter = ""
    /// The child's private folder, where it mounts a tmpfs of its own of at
    /// most `privateSize` bytes and `privateFiles` files (`IsolationLimits`);
    /// nil: the child makes no namespaces (set by `ChildProcess`).
    var privateFolder: String?
    var privateSize: UInt64 = IsolationLimits.defaultPrivateFolderSize
    var privateFiles: UInt64 = IsolationLimits.defaultPrivateFolderFiles
    /// The plugin's data folder (also in `writeFolders`), which the child
    /// binds into its private folder as `data`, and the size the host keeps
    /// it under (`FolderQuota`; the host's side only).
    var dataFolder: String?
    package var dataLimit: UInt64?
    /// Whether the child joins the empty network and IPC namespaces its host
    /// keeps (`NamespaceKeeper`), whose descriptors it holds as 5 (the
    /// network), 6 (IPC) and 7 (their user namespace, for a host that is not root).
    var joinsKeptNetwork = false
    var keptUserNamespace = false
    /// Whether it joins the kept IPC namespace too (only under a filter that refuses every IPC call).
    var joinsKeptIPC = false
    static let keptNetworkDescriptor: Int32 = 5
    static let keptIPCDescriptor: Int32 = 6
    static let keptUserDescriptor: Int32 = 7

    /// Who a child of a root host runs as: nobody (65534), never root.
    var runAsUser: UInt32 = 65534
    var runAsGroup: UInt32 = 65534

    /// The child's RLIMIT_FSIZE once it is sandboxed: `maxFileSize`, or a
    /// quarter of its private folder's size when that folder is on the host's
    /// disk (the child lowers it itself then: `graft_sandbox_enter`), so
    /// that a folder the host measures cannot be overrun by much.
    func fileLimit(privateTmpfs: Bool) -> UInt64 {
        privateFolder != nil && !privateTmpfs ? min(maxFileSize, max(privateSize / 4, 4096)) : maxFileSize
    }

    /// The descriptor through which a root host's child without a mount
    /// namespace reaches its data folder (`/proc/self/fd/200`; `GRAFT_DATA_FD` in graft_sandbox.c).
    static let dataDescriptor: Int32 = 200

    /// Whether the child gets an empty network namespace: nothing granted needs the host's.
    var isolatesNetwork: Bool { !anyNetwork && connectPorts.isEmpty }

    /// Nothing granted: the runtime's libraries and the files every process reads.
    package init(
        libraryFolders: [String] = SandboxPolicy.runtimeFolders, readPaths: [String] = SandboxPolicy.systemFiles,
        writeFolders: [String] = [], connectPorts: [UInt16] = [], anyNetwork: Bool = false,
        maxOpenFiles: UInt64 = 256, maxFileSize: UInt64 = 64 << 20
    ) {
        self.libraryFolders = libraryFolders
        self.readPaths = readPaths
        self.writeFolders = writeFolders
        self.connectPorts = connectPorts
        self.anyNetwork = anyNetwork
        self.maxOpenFiles = maxOpenFiles
        self.maxFileSize = maxFileSize
    }

    /// Files any program reads: the loader's cache, the time zone, the CPU
    /// count and quota (the Swift runtime, Dispatch and Foundation ask them),
    /// those of them this system has (looked up once: a path the child would
    /// not find costs each sandboxed start a failed lookup).
    static let systemFiles = existing([
        "/etc/ld.so.cache", "/etc/localtime", "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
        // The CPU quota of the process's cgroup, which Foundation's activeProcessorCount reads (v1 and v2).
        "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us", "/sys/fs/cgroup/cpuset/cpuset.cpus",
        "/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpuset.cpus.effective",
    ])

    private static func existing(_ paths: [String]) -> [String] {
        paths.filter { access($0, F_OK) == 0 }
    }

    /// The system's library folders, and the folder of the Swift runtime this
    /// host uses or, for a host linked with a static standard library, the one
    /// of the toolchain on PATH (Swift plugins map its libswiftCore.so).
    static let runtimeFolders: [String] = {
        var folders = existing(["/usr", "/lib", "/lib64", "/lib32", "/libx32"])
        if let folder = swiftRuntimeFolder(), !folders.contains(where: { folder == $0 || folder.hasPrefix($0 + "/") }) {
            folders.append(folder)
        }
        return folders
    }()

    private static func swiftRuntimeFolder() -> String? {
        if let cName = graft_library_defining("swift_retain") {
            defer { free(cName) }
            let name = String(cString: cName)
            if name.hasSuffix("/libswiftCore.so") { return FilePaths.folder(of: name) }
        }
        for folder in (ProcessEnvironment.value("PATH") ?? "").split(separator: ":") where folder.hasPrefix("/") {
            guard let compiler = FilePaths.realPath("\(folder)/swiftc") else { continue }
            let runtime = FilePaths.folder(of: FilePaths.folder(of: compiler)) + "/lib/swift/linux"
            if access(runtime + "/libswiftCore.so", R_OK) == 0 { return runtime }
        }
        return nil
    }

    // MARK: To the child and back

    /// The arguments that carry this policy to a child (`--sandbox …`).
    var arguments: [String] {
        var arguments: [String] = []
        for folder in libraryFolders { arguments += ["--sandbox-library", folder] }
        for path in readPaths { arguments += ["--sandbox-read", path] }
        for folder in writeFolders { arguments += ["--sandbox-write", folder] }
        for port in connectPorts { arguments += ["--sandbox-connect", String(port)] }
        if anyNetwork { arguments.append("--sandbox-any-network") }
        arguments += ["--sandbox-files", String(maxOpenFiles), "--sandbox-file-size", String(maxFileSize)]
        if let privateFolder {
            arguments += [
                "--sandbox-private", privateFolder, "--sandbox-private-size", String(privateSize), "--sandbox-private-files",
                String(privateFiles), "--sandbox-run-as", "\(runAsUser):\(runAsGroup)",
            ]
        }
        if let dataFolder { arguments += ["--sandbox-data", dataFolder] }
        if joinsKeptNetwork { arguments.append(keptUserNamespace ? "--sandbox-kept-network-and-user" : "--sandbox-kept-network") }
        if joinsKeptIPC { arguments.append("--sandbox-kept-ipc") }
        if !filter.isEmpty { arguments += ["--sandbox-filter", filter] }
        return arguments
    }

    /// Reads the sandbox's arguments from the front of `arguments`, leaving the
    /// rest; nil when there are none (the host runs this child unsandboxed).
    package init?(arguments: inout ArraySlice<String>) {
        guard arguments.first?.hasPrefix("--sandbox-") == true else { return nil }
        self.init(libraryFolders: [], readPaths: [])
        while let option = arguments.first, option.hasPrefix("--sandbox-") {
            arguments.removeFirst()
            if option == "--sandbox-any-network" {
                anyNetwork = true
                continue
            }
            if option == "--sandbox-kept-ipc" {
                joinsKeptIPC = true
                continue
            }
            if option == "--sandbox-kept-network" || option == "--sandbox-kept-network-and-user" {
                joinsKeptNetwork = true
                keptUserNamespace = option == "--sandbox-kept-network-and-user"
                continue
            }
            guard let value = arguments.popFirst() else { break }
            switch option {
            case "--sandbox-library": libraryFolders.append(value)
            case "--sandbox-read": readPaths.append(value)
            case "--sandbox-write": writeFolders.append(value)
            case "--sandbox-connect": if let port = UInt16(value) { connectPorts.append(port) }
            case "--sandbox-files": maxOpenFiles = UInt64(value) ?? maxOpenFiles
            case "--sandbox-file-size": maxFileSize = UInt64(value) ?? maxFileSize
            case "--sandbox-filter": filter = value
            case "--sandbox-private": privateFolder = value
            case "--sandbox-private-size": privateSize = UInt64(value) ?? privateSize
            case "--sandbox-private-files": privateFiles = UInt64(value) ?? privateFiles
            case "--sandbox-data": dataFolder = value
            case "--sandbox-run-as":
                let ids = value.split(separator: ":").compactMap { UInt32($0) }
                if ids.count == 2 { (runAsUser, runAsGroup) = (ids[0], ids[1]) }
            default: break
            }
        }
    }
}
