/// Both ends of a `load`: the host sends a plugin's file (its descriptor)
/// to the runner child before the first call about it, and holds the child
/// to what the scan saw.
extension PluginRunner {
    /// The plugin's slot in `child`, loading it there first (once: other
    /// callers wait for a load on its way).
    func slot(for plugin: LoadedPlugin, in child: any RunnerTransport, events: inout [Calls.Event]) throws(GraftError) -> UInt32 {
        let key = ObjectIdentifier(plugin)
        while true {
            guard supervisor.child === child else {
                throw GraftError(.pluginRestarted, "the process of plugin '\(plugin.info.id)' restarted while it was loaded.")
            }
            if let slot = slots[key] { return slot }
            guard loading.contains(key) else { break }
            lock.wait()
        }
        loading.insert(key)
        defer {
            loading.remove(key)
            lock.broadcast()
        }
        let file = try open(plugin)
        // Queued frames first, on their own: the descriptor belongs to the load's bytes.
        let queued = calls.takeQueued()
        if !queued.isEmpty { _ = child.send(frames: queued) }
        // A load's payload is laid out as a scan's.
        let payload = ScanRequest(path: file.path, realPath: file.realPath, copy: mapsCopies).bytes
        var frame: [UInt8] = []
        let id = calls.add(.load, plugin: plugin, what: "loading it", context: nil, deadline: limits.load, payload: payload, into: &frame)
        if !child.send(frame: frame, descriptor: file.descriptor) { calls.sendFailed(id) }
        var answer = try waitForAnswer(id, on: child, events: &events)
        guard answer.kind == .loaded, let slot = try? answer.reader.u32(), let mapped = try? answer.reader.plugin(path: plugin.info.path)
        else {
            throw abandon(child, plugin: plugin, "answered a load with \(answer.kind)")
        }
        // The plugin must declare in its runner what its scan recorded, as it
        // must when mapped in process: a build that tells each process
        // something else is refused.
        guard mapped.declaresSame(as: plugin.info) else {
            throw kill(child, Calls.Kill(plugin: plugin, error: GraftError(
                .invalidDescriptor,
                "\(plugin.info.path) declares other components, validators, actions or permissions in its runner than when it was scanned; it is refused, as it would be in process.",
                path: plugin.info.path), culprit: nil))
        }
        slots[key] = slot
        servedPlugins.append(Weak(plugin))
        return slot
    }
}

// MARK: - The child's end

extension RunnerService.Server {
    /// Maps the file the host sent (with its descriptor) in a host of its
    /// own, and says what it declares here: the host holds it to what the
    /// scan saw.
    func serveLoad(_ reader: inout WireReader, descriptor: Int32) throws -> (Wire.Kind, [UInt8]) {
        let path = try reader.string(), realPath = try reader.string(), copy = try reader.bool()
        guard descriptor >= 0 else { throw GraftError(.pluginNotFound, "\(path) arrived without its descriptor.", path: path) }
        let file = try PluginFile(adopting: descriptor, path: path, realPath: realPath)
        let host = GraftHost(
            configuration: GraftConfiguration(searchPath: SearchPath(folders: []), scanning: .inProcess, cacheFolder: nil, mapping: .atStart),
            logger: logger)
        let plugin = try host.loadInRunner(file, mapping: ChildSandbox.mapping(copy: copy))
        let slot = keep(host)
        var writer = WireWriter()
        writer.u32(slot)
        writer.plugin(plugin.info)
        return (.loaded, writer.bytes)
    }
}
