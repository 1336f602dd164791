import Dispatch
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Watches plugin folders with inotify and reloads a plugin when its file
/// changes: `IN_CLOSE_WRITE` catches a linker writing in place, `IN_MOVED_TO`
/// an editor's atomic rename, `IN_DELETE`/`IN_MOVED_FROM` a removal. Events
/// for one file are debounced, and the content hash makes an unchanged file a
/// no-op, so one build gives exactly one reload. A file that does not load yet
/// (still being written) is retried before the failure is reported; a
/// removal waits longer, since a linker may unlink a file before it writes
/// the new one. Stop it with `stop()`.
public final class PluginWatcher: Sendable {
    /// What is watched: folders, and plugin files named on the search path
    /// (watched through their folder, for that file only).
    public let folders: [String]
    public let debounce: Duration
    private let descriptor: Int32
    private weak let host: GraftHost?
    private let queue = DispatchQueue(label: "graft.hotswap.watch")
    private let reloads = DispatchQueue(label: "graft.hotswap.reload")
    private let state = Locked(State())

    private struct State: @unchecked Sendable {
        // The dispatch source is only touched under this lock.
        var source: DispatchSourceRead?
        var folderByWatch: [Int32: String] = [:]
        /// For a folder watched for some of its files only, their names.
        var onlyNames: [String: Set<String>] = [:]
        /// The newest event's generation per file: only the last one in a burst acts.
        var generation: [String: Int] = [:]
        /// Debounce timers not yet fired, and reloads queued or running.
        var pending = 0
    }

    /// Whether the watcher has nothing left to do for what has happened so
    /// far: every file event read, every debounce over, every reload done.
    /// For tests that must tell "one reload" from "one reload so far".
    var isSettled: Bool {
        var unread: Int32 = 0
        guard ioctl(descriptor, UInt(FIONREAD), &unread) != 0 || unread == 0 else { return false }
        return state.withLock { $0.pending == 0 }
    }

    /// How many times a file that fails to load is retried, one debounce apart.
    static let retries = 5

    init(host: GraftHost, folders: [String], files: [String] = [], debounce: Duration) throws(GraftError) {
        self.host = host
        self.folders = folders + files
        self.debounce = debounce
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw GraftError(.permissionDenied, "inotify is not available: \(String(cString: strerror(errno))).")
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)
        var watches: [Int32: String] = [:]
        // A file is watched through its folder (a linker replaces the file,
        // and a watch on it would follow the old inode), unless the whole
        // folder is watched anyway.
        var onlyNames: [String: Set<String>] = [:]
        for file in files where !folders.contains(FilePaths.folder(of: file)) {
            onlyNames[FilePaths.folder(of: file), default: []].insert(FilePaths.lastComponent(of: file))
        }
        for folder in folders + onlyNames.keys.sorted() {
            let watch = inotify_add_watch(descriptor, folder, mask)
            if watch >= 0 { watches[watch] = folder }
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        state.withLock {
            $0.folderByWatch = watches
            $0.onlyNames = onlyNames
            $0.source = source
        }
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { [descriptor] in Glibc.close(descriptor) }
        source.resume()
    }

    deinit {
        stop()
    }

    /// Stops watching. Reloads already under way finish.
    public func stop() {
        state.withLock { $0.source.take() }?.cancel()
    }

    /// Reads every pending inotify event and schedules a reload per file.
    private func drain() {
        // Counted while it runs: events read but not yet scheduled are not "settled".
        state.withLock { $0.pending += 1 }
        defer { state.withLock { $0.pending -= 1 } }
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = (buffer + offset).load(as: inotify_event.self)
                let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                guard event.len > 0 else { continue }
                let name = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
                guard name.hasSuffix(".so") || name.hasSuffix(WasmFile.suffix), !name.hasPrefix("."),
                    let folder = state.withLock({ state in
                        state.folderByWatch[event.wd].flatMap { folder in
                            state.onlyNames[folder].map { $0.contains(name) } ?? true ? folder : nil
                        }
                    })
                else { continue }
                let removed = event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0
                schedule(path: FilePaths.joined(folder, name), removed: removed)
            }
        }
    }

    private func schedule(path: String, removed: Bool) {
        let generation = state.withLock { state -> Int in
            let next = (state.generation[path] ?? 0) + 1
            state.generation[path] = next
            state.pending += 1
            return next
        }
        let wait = removed ? max(debounce * 10, .milliseconds(500)) : debounce
        queue.asyncAfter(deadline: .now() + Self.interval(wait)) { [weak self] in
            guard let self else { return }
            // Counted until the reload it starts is over (or it is superseded).
            guard self.state.withLock({ $0.generation[path] }) == generation else {
                self.state.withLock { $0.pending -= 1 }
                return
            }
            self.reloads.async { self.reload(path: path, attempt: 0, generation: generation) }
        }
    }

    private func reload(path: String, attempt: Int, generation: Int) {
        var retrying = false
        defer { if !retrying { state.withLock { $0.pending -= 1 } } }
        guard let host, state.withLock({ $0.generation[path] }) == generation else { return }
        let last = attempt >= Self.retries
        let event = host.reload(pluginAt: path, force: false, notify: false)
        if case .failed(let error) = event.outcome, !last, Self.mayBeIncomplete(error) {
            retrying = true
            reloads.asyncAfter(deadline: .now() + Self.interval(debounce)) { [weak self] in
                self?.reload(path: path, attempt: attempt + 1, generation: generation)
            }
            return
        }
        host.notifySwap(event)
    }

    /// Errors a file still being written can cause.
    private static func mayBeIncomplete(_ error: GraftError) -> Bool {
        [.notASharedLibrary, .dlopenFailed, .pluginNotFound, .entrySymbolMissing, .pluginChanged].contains(error.code)
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

extension GraftHost {
    /// Watches the search path's folders (or `folders`) and reloads plugins
    /// as their files change; a plugin file named on the search path is
    /// watched too. Keep the watcher; it stops when released. Use a host that
    /// `loadsFromCopies`: a file rewritten in place under an image mapped
    /// from it crashes the process.
    public func watchPluginFolders(
        _ folders: [String]? = nil, debounce: Duration = .milliseconds(50)
    ) throws(GraftError) -> PluginWatcher {
        if !loadsFromCopies {
            logger.warning("watching plugin folders with a host that maps the files themselves; a file rewritten in place will crash it. Create the host with loadsFromCopies: true.")
        }
        func kind(_ path: String) -> mode_t? {
            var status = stat()
            return stat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
        }
        let named = folders ?? searchPath.folders
        let chosen = named.filter { kind($0) == S_IFDIR }
        let files = named.filter { ($0.hasSuffix(".so") || $0.hasSuffix(WasmFile.suffix)) && kind($0) == S_IFREG }
        return try PluginWatcher(host: self, folders: chosen, files: files, debounce: debounce)
    }
}
