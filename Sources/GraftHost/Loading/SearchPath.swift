import Foundation

/// Where the host looks for plugins, in order:
/// 1. folders given by the caller (`--plugin-path`, or the API),
/// 2. `GRAFT_PLUGIN_PATH` (colon-separated absolute folders; relative entries
///    are refused with a warning),
/// 3. `~/.local/lib/graft/plugins`, `/usr/local/lib/graft/plugins`, `/usr/lib/graft/plugins`,
/// 4. the folder of the running executable, so that the plugins `swift build`
///    puts beside `graft` are found with no setup.
public struct SearchPath: Sendable, Hashable {
    public var folders: [String]
    /// Folders searched without descending into subfolders (the executable's
    /// own folder: a build folder holds much that is not a plugin).
    public var flatFolders: Set<String>
    /// Entries that were refused, with why (for example a relative folder in
    /// `GRAFT_PLUGIN_PATH`).
    public var warnings: [String]

    /// How deep discovery descends into subfolders of a search folder.
    public static let maximumDepth = 3

    public init(folders: [String], flatFolders: Set<String> = [], warnings: [String] = []) {
        self.folders = folders
        self.flatFolders = flatFolders
        self.warnings = warnings
    }

    /// The standard search path. `explicit` entries may be files or folders.
    public static func standard(
        explicit: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment,
        includeSystemFolders: Bool = true, executableFolder: String? = SearchPath.executableFolder
    ) -> SearchPath {
        var folders = explicit.map { ($0 as NSString).standardizingPath }
        var warnings: [String] = []
        var flatFolders: Set<String> = []
        if let variable = environment["GRAFT_PLUGIN_PATH"] {
            for entry in variable.split(separator: ":").map(String.init) where !entry.isEmpty {
                if entry.hasPrefix("/") {
                    folders.append(entry)
                } else {
                    warnings.append("GRAFT_PLUGIN_PATH entry '\(entry)' is not an absolute folder and was ignored.")
                }
            }
        }
        if includeSystemFolders {
            if let home = environment["HOME"], home.hasPrefix("/") {
                folders.append(home + "/.local/lib/graft/plugins")
            }
            folders += ["/usr/local/lib/graft/plugins", "/usr/lib/graft/plugins"]
            if let executableFolder {
                folders.append(executableFolder)
                flatFolders.insert(executableFolder)
            }
        }
        return SearchPath(folders: folders, flatFolders: flatFolders, warnings: warnings)
    }

    /// The folder holding the running executable, resolved through symlinks.
    public static var executableFolder: String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (path as NSString).deletingLastPathComponent
    }

    /// Every `.so` file on the path, in search order, each real file once.
    /// Subfolders are searched to `maximumDepth`; symlinked folders are
    /// followed, but never into a folder already visited (no loops).
    public func pluginFiles() -> [String] {
        var files: [String] = []
        var seenFiles: Set<String> = []
        var seenFolders: Set<String> = []
        let manager = FileManager.default

        func visit(_ folder: String, depth: Int) {
            let real = (folder as NSString).resolvingSymlinksInPath
            guard seenFolders.insert(real).inserted else { return }
            guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return }
            var subfolders: [String] = []
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    subfolders.append(path)
                } else if name.hasSuffix(".so") {
                    add(path)
                }
            }
            if depth < Self.maximumDepth {
                for subfolder in subfolders { visit(subfolder, depth: depth + 1) }
            }
        }

        func add(_ path: String) {
            let real = (path as NSString).resolvingSymlinksInPath
            if seenFiles.insert(real).inserted { files.append(path) }
        }

        for entry in folders {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: entry, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                visit(entry, depth: flatFolders.contains(entry) ? Self.maximumDepth : 0)
            } else {
                add(entry)
            }
        }
        return files
    }
}
