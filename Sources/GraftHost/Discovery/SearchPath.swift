import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Where the host looks for plugins, in order:
/// 1. folders given by the caller (`--plugin-path`, or the API),
/// 2. `GRAFT_PLUGIN_PATH` (colon-separated absolute folders; relative entries
///    are refused with a warning),
/// 3. `~/.local/lib/graft/plugins`, `/usr/local/lib/graft/plugins`, `/usr/lib/graft/plugins`,
///    and, for an executable installed in `PREFIX/bin`, `PREFIX/lib/graft/plugins`
///    (where `Scripts/install.sh` puts the first-party plugins, whatever the prefix),
/// 4. the folder of the running executable, so that the plugins `swift build`
///    puts beside `graft` are found with no setup.
public struct SearchPath: Sendable, Hashable {
    public var folders: [String]
    /// Folders searched without descending into subfolders (the executable's
    /// own folder: a build folder holds much that is not a plugin).
    var flatFolders: Set<String>
    /// Entries that were refused, with why (for example a relative folder in
    /// `GRAFT_PLUGIN_PATH`); the host logs them as warnings when it starts.
    package var warnings: [String]

    /// How deep discovery descends into subfolders of a search folder.
    static let maximumDepth = 3

    /// Exactly `folders` (folders, searched three levels deep, or `.so` files).
    public init(folders: [String]) {
        self.init(folders: folders, flatFolders: [], warnings: [])
    }

    package init(folders: [String], flatFolders: Set<String>, warnings: [String] = []) {
        self.folders = folders
        self.flatFolders = flatFolders
        self.warnings = warnings
    }

    /// The standard search path. `explicit` entries may be files or folders.
    public static func standard(
        explicit: [String] = [], environment: [String: String]? = nil,
        includeSystemFolders: Bool = true, executableFolder: String? = SearchPath.executableFolder
    ) -> SearchPath {
        var folders = explicit.map { FilePaths.standardized($0) }
        var warnings: [String] = []
        var flatFolders: Set<String> = []
        if let variable = ProcessEnvironment.value("GRAFT_PLUGIN_PATH", in: environment) {
            for entry in variable.split(separator: ":").map(String.init) where !entry.isEmpty {
                if entry.hasPrefix("/") {
                    folders.append(entry)
                } else {
                    warnings.append("GRAFT_PLUGIN_PATH entry '\(entry)' is not an absolute folder and was ignored.")
                }
            }
        }
        if includeSystemFolders {
            if let home = ProcessEnvironment.value("HOME", in: environment), home.hasPrefix("/") {
                folders.append(home + "/.local/lib/graft/plugins")
            }
            folders += ["/usr/local/lib/graft/plugins", "/usr/lib/graft/plugins"]
            if let executableFolder, FilePaths.lastComponent(of: executableFolder) == "bin" {
                let prefix = FilePaths.folder(of: executableFolder)
                let installed = (prefix == "/" ? "" : prefix) + "/lib/graft/plugins"
                if !folders.contains(installed) { folders.append(installed) }
            }
            if let executableFolder {
                folders.append(executableFolder)
                flatFolders.insert(executableFolder)
            }
        }
        return SearchPath(folders: folders, flatFolders: flatFolders, warnings: warnings)
    }

    /// The folder holding the running executable, resolved through symlinks.
    public static let executableFolder: String? = {
        // Once: reading /proc/self/exe cost a host's start a few percent (`graft bench discovery`).
        let capacity = Int(PATH_MAX)
        let path = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> String? in
            let count = readlink("/proc/self/exe", buffer.baseAddress!, capacity)
            guard count > 0, count < capacity else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
        return path.map { FilePaths.folder(of: $0) }
    }()

    /// Every `.so` file on the path, in search order, each real file once.
    func pluginFiles() -> [String] { discoverEntries().entries.map(\.path) }

    /// A plugin file found on the path: the path as found, its real path, and
    /// what `stat` said of it (so that a file the registry cache knows needs
    /// no other system call).
    struct Entry {
        var path: String
        var realPath: String
        var status: stat
        /// What `stat` says of `FILE.minisig` beside a plain (not linked)
        /// file, when discovery was asked to look (`signatures`): nil when
        /// there is no plain file of that name.
        var signature: FileIdentity?
        /// Whether `signature` was looked for.
        var signatureLooked = false
    }

    /// Every `.so` file on the path, in search order, each real file once;
    /// and the entries that look like plugins but cannot be one: a file name
    /// that is not UTF-8, a dangling symlink, a symlink loop. Subfolders are
    /// searched to `maximumDepth`; symlinked folders are followed, but never
    /// into a folder already visited (no loops).
    func discoverEntries(signatures: Bool = false) -> (entries: [Entry], problems: [PluginFailure]) {
        var files: [Entry] = []
        var problems: [PluginFailure] = []
        var seenFiles: Set<String> = []
        var seenFolders: Set<String> = []

        func visit(_ folder: String, depth: Int) {
            guard let real = FilePaths.realPath(folder), seenFolders.insert(real).inserted else { return }
            guard let directory = opendir(folder) else { return }
            defer { closedir(directory) }
            let descriptor = dirfd(directory)
            var names: [(name: [UInt8], type: UInt8)] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    Array(raw.prefix(while: { $0 != 0 }))
                }
                if name.first != UInt8(ascii: ".") { names.append((name, entry.pointee.d_type)) }
            }
            var subfolders: [String] = []
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            for (raw, type) in names.sorted(by: { Self.precedes($0.name, $1.name) }) {
                let isPluginName = raw.count >= 3 && raw.suffix(3).elementsEqual(".so".utf8)
                    || raw.count >= 5 && raw.suffix(5).elementsEqual(WasmFile.suffix.utf8)
                if type == 8 /* DT_REG */ && !isPluginName { continue }  // neither a plugin nor a folder
                guard let name = String(validating: raw, as: UTF8.self) else {
                    if isPluginName {
                        let shown = Self.escaped(raw)
                        problems.append(PluginFailure(
                            path: folder + "/" + shown,
                            error: GraftError(
                                .invalidFileName,
                                "\(folder)/\(shown): the file name is not valid UTF-8, so it cannot be named in reports, flows or the lock file; rename it.",
                                path: folder + "/" + shown)))
                    }
                    continue
                }
                let path = prefix + name
                var status = stat()
                if fstatat(descriptor, name, &status, 0) != 0 {
                    // A name that readdir sees but stat cannot follow: a broken link.
                    if isPluginName, let problem = Self.whyNotOpenable(path) { problems.append(problem) }
                    continue
                }
                if (status.st_mode & S_IFMT) == S_IFDIR {
                    subfolders.append(path)
                } else if isPluginName {
                    // A plain entry's real path is its folder's; only a link needs resolving.
                    let isLink = type == 10 /* DT_LNK */ || type == 0 /* DT_UNKNOWN */
                    add(path, realPath: isLink ? nil : real + "/" + name, status: status)
                    // A signed host's signature beside it, from the folder already open (no path walk).
                    if signatures, !isLink, files.last?.path == path {
                        var signature = stat()
                        let found = fstatat(descriptor, name + ".minisig", &signature, AT_SYMLINK_NOFOLLOW) == 0
                            && (signature.st_mode & S_IFMT) == S_IFREG
                        files[files.count - 1].signature = found ? FileIdentity(signature) : nil
                        files[files.count - 1].signatureLooked = true
                    }
                }
            }
            if depth < Self.maximumDepth {
                for subfolder in subfolders { visit(subfolder, depth: depth + 1) }
            }
        }

        func add(_ path: String, realPath known: String? = nil, status: stat) {
            let real = known ?? FilePaths.realPath(path) ?? path
            if seenFiles.insert(real).inserted { files.append(Entry(path: path, realPath: real, status: status)) }
        }

        for entry in folders {
            var status = stat()
            guard stat(entry, &status) == 0 else {
                var link = stat()
                if lstat(entry, &link) == 0, let problem = Self.whyNotOpenable(entry) { problems.append(problem) }
                continue
            }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                visit(entry, depth: flatFolders.contains(entry) ? Self.maximumDepth : 0)
            } else {
                add(entry, status: status)
            }
        }
        return (files, problems)
    }

    /// Byte order, as `lexicographicallyPrecedes` (and `ls` in the C locale)
    /// gives it, through `memcmp`: the generic comparison was a twelfth of
    /// walking a folder of 200 plugins.
    static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        let common = Swift.min(left.count, right.count)
        let order = left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in common == 0 ? 0 : memcmp(l.baseAddress!, r.baseAddress!, common) }
        }
        return order != 0 ? order < 0 : left.count < right.count
    }

    /// Why `path` cannot be opened as a plugin (a dangling symlink, a loop), in
    /// the words `PluginFile` uses; nil if it can.
    private static func whyNotOpenable(_ path: String) -> PluginFailure? {
        do throws(GraftError) {
            _ = try PluginFile(opening: path)
            return nil
        } catch {
            return PluginFailure(path: path, error: error)
        }
    }

    /// A file name with every byte that is not printable ASCII as `\xNN`.
    static func escaped(_ raw: [UInt8]) -> String {
        raw.map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }
            .joined()
    }
}
