import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

extension GraftHost {
    /// Loads the current build of `path` in place of the running one, without
    /// a restart. The new build is copied to a private path, loaded and
    /// checked completely (entry, ABI, descriptors, signatures, no key taken
    /// by another plugin) before anything switches; then the registry is
    /// swapped in one step, so every lookup on any thread sees the old build
    /// or the new one and never fails. Live instances are recreated on the new
    /// build with their inputs, carrying state when both builds can.
    ///
    /// Any failure keeps the running build live; it is reported in the event
    /// (and to observers and the log), not thrown. A file whose content hash
    /// did not change is left alone unless `force` (a host that does not
    /// `loadsFromCopies` records no hash at its first load, so its first
    /// reload always reloads). A file not loaded yet is loaded; a file that is
    /// gone is removed.
    @discardableResult
    public func reload(pluginAt path: String, force: Bool = false) -> SwapEvent {
        reload(pluginAt: path, force: force, notify: true)
    }

    /// `notify: false` lets the watcher retry a half-written file quietly and
    /// report only the attempt that counts.
    func reload(pluginAt path: String, force: Bool, notify: Bool) -> SwapEvent {
        swapping.withLock {
            let event = performReload(path: path, force: force)
            // A file no build of which runs (new, or failed before) is listed
            // with the failures, as a scan lists it; a running build that
            // rejects a new one keeps serving and is not a failure.
            if case .failed(let error) = event.outcome, event.oldVersion == nil, FileManager.default.fileExists(atPath: path) {
                recordFailure(error, path: path)
            }
            if notify { notifySwap(event) }
            return event
        }
    }

    private func performReload(path: String, force: Bool) -> SwapEvent {
        let clock = ContinuousClock()
        let start = clock.now
        let real = FilePaths.resolvingSymlinks(path)
        let old = table.plugin(at: real)
        func event(
            _ outcome: SwapEvent.Outcome, new: PluginDescription? = nil, recreated: [SwapEvent.Recreated] = [],
            failed: [(instanceID: String, error: GraftError)] = [], orphaned: [String] = []
        ) -> SwapEvent {
            SwapEvent(
                time: Date(), path: path, pluginID: new?.id ?? old?.info.id, oldVersion: old?.info.version,
                newVersion: new?.version, outcome: outcome, duration: clock.now - start, recreated: recreated,
                failed: failed, orphaned: orphaned)
        }

        guard FileManager.default.fileExists(atPath: path) else {
            guard old != nil else {
                // A file that had failed is gone: so is its failure.
                if table.clearFailure(path: path) { return event(.removed) }
                return event(.failed(GraftError(.pluginNotFound, "\(path) does not exist.", path: path)))
            }
            remove(realPath: real)
            return event(.removed)
        }
        let file: PluginFile, hash: String, plugin: LoadedPlugin
        do throws(GraftError) {
            // Hashed, judged, scanned and mapped from one sealed copy: a file
            // rewritten in place meanwhile cannot run what was not checked.
            let opened = try PluginFile(opening: path)
            // What `stat` alone refuses is refused before anything is copied.
            try checkTrust(opened)
            file = try opened.sealedCopy()
            hash = try ContentHash.of(file)
            if !force, old != nil, table.hash(of: real) == hash {
                var unchanged = event(.unchanged)
                unchanged.restoresRunningBuild = table.clearRejectedBuild(realPath: real)
                return unchanged
            }
            try checkPin(file)
            if WasmFile.isModule(file) {
                // Described in a fresh instance of its own; the running build keeps serving.
                plugin = try loadGuest(file, hash: hash)
            } else {
                // A build that crashes or hangs while loading does so in the
                // scanner child; the running build keeps serving.
                var description = try describe(file, mapping: .copy)
                if let described = description { description?.signer = try checkSignature(file, declaring: described, hash: hash) }
                if let description, let runner = runner(for: description) {
                    // Isolated: the new build runs in a new child, which must
                    // create every live instance's component before it takes over.
                    plugin = LoadedPlugin(described: description, runner: runner, checkedHash: hash)
                    let previous = table.setIdentity(file.identity, of: file.realPath)
                    do throws(GraftError) {
                        try rehearse(plugin, for: old)
                    } catch {
                        table.setIdentity(previous, of: file.realPath)
                        throw error
                    }
                } else {
                    // Mapped from a private copy: the file may be rewritten again
                    // while this build runs.
                    if description == nil { try requireScanForSignatures(file) }
                    plugin = try loader.load(file, mapping: .copy, images: images)
                    // What runs must be what was scanned (and judged): a plugin may not say one id to its scanner and another here.
                    if let description, !plugin.info.declaresSame(as: description) { throw declaredDifferently(path) }
                }
            }
            if old == nil { try register(plugin, file: file) }
        } catch {
            return event(.failed(error))
        }

        guard let old else {
            table.setHash(hash, of: real)
            return event(.loaded, new: plugin.info)
        }

        do throws(GraftError) {
            try table.replace(old, with: PluginTable.Entry(plugin: plugin, realPath: file.realPath, file: file.identity.file), hash: hash)
        } catch {
            return event(.failed(error), new: plugin.info)
        }
        _ = table.clearRejectedBuild(realPath: real)

        // The new build serves every lookup from here on; now move the live
        // instances of the old build over.
        var recreated: [SwapEvent.Recreated] = []
        var failed: [(instanceID: String, error: GraftError)] = []
        var orphaned: [String] = []
        let published = table.components.snapshot.components
        for instance in tracker.cores where instance.component.plugin === old {
            let reference = instance.component.reference
            guard let replacement = published[reference.qualified(by: plugin.info.id)] else {
                orphaned.append(instance.id)
                logger.warning(
                    "\(reference) is gone from the new build of \(path); instance '\(instance.id)' stays on the old build until it closes.")
                continue
            }
            do throws(GraftError) {
                let carried = try instance.move(to: replacement)
                recreated.append(.init(instanceID: instance.id, component: reference, stateCarried: carried))
                if !carried {
                    logger.info("instance '\(instance.id)' of \(reference) was recreated without its state.")
                }
            } catch {
                failed.append((instance.id, error))
                logger.error("instance '\(instance.id)' could not move to the new build and stays on the old one: \(error)")
            }
        }
        return event(.swapped, new: plugin.info, recreated: recreated, failed: failed, orphaned: orphaned)
    }

    /// Before an isolated new build takes over: its child creates, from the
    /// debugConfig, every component that live instances of `old` use, and
    /// destroys it again. A build that cannot is rejected while the old one
    /// serves.
    private func rehearse(_ plugin: LoadedPlugin, for old: LoadedPlugin?) throws(GraftError) {
        guard let runner = plugin.runner else { return }
        let used = Set(tracker.cores.filter { $0.component.plugin === old }.map(\.component.reference))
        for contract in plugin.info.components where used.contains(contract.reference) {
            let sent = try runner.call(
                .create, plugin: plugin, what: "create of \(contract.reference) from its debugConfig (before the swap)"
            ) { writer, slot in
                RunnerInstance.writeCreate(&writer, slot: slot, contract: contract, inputs: contract.debugConfig, size: ContainerSize(width: 0, height: 0))
            }
            var answer = sent.answer
            guard answer.kind == .created, let number = try? answer.reader.u32() else {
                throw GraftError(.instanceCreateFailed, "the new build of \(plugin.info.path) answered create with \(answer.kind).")
            }
            let probe = PluginRunner.Instance(generation: sent.generation, number: number)
            _ = try runner.call(.destroy, plugin: plugin, what: "destroy of a rehearsal instance", instance: probe) { writer, _ in
                writer.u32(number)
            }
        }
    }

    /// The file is gone: unregister now if no instance uses the plugin, else
    /// once the last one closes.
    func remove(realPath: String) {
        guard let plugin = table.plugin(at: realPath) else { return }
        // Instances are asked outside the table's lock: an instance's own
        // lock may be held by a thread that is calling into the host.
        if tracker.cores.contains(where: { $0.component.plugin === plugin }) {
            table.markRemovedInUse(realPath)
            finishRemovals()  // in case the last instance closed meanwhile
        } else {
            forgetFile(realPath: realPath)
        }
    }

    /// Unregisters removed files whose last instance has closed.
    func finishRemovals() {
        let pending = table.removedInUse()
        guard !pending.isEmpty else { return }
        let live = tracker.cores
        for realPath in pending {
            if let plugin = table.plugin(at: realPath), live.contains(where: { $0.component.plugin === plugin }) { continue }
            forgetFile(realPath: realPath)
        }
    }

    private func forgetFile(realPath: String) {
        guard let plugin = table.forget(realPath: realPath) else { return }
        logger.info("unregistered \(plugin.info.id): \(plugin.info.path) was removed")
    }

    // MARK: Observers

    /// Calls `observer` with every reload's event, on the reloading thread.
    /// Returns a token for `removeSwapObserver`.
    @discardableResult
    public func addSwapObserver(_ observer: @escaping @Sendable (SwapEvent) -> Void) -> Int {
        swapObservers.add(observer)
    }

    public func removeSwapObserver(_ token: Int) {
        swapObservers.remove(token)
    }

    /// Every reload's event from now on, until the stream is dropped.
    public func swapEvents() -> AsyncStream<SwapEvent> {
        let (stream, continuation) = AsyncStream<SwapEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let token = addSwapObserver { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeSwapObserver(token) }
        return stream
    }

    func notifySwap(_ event: SwapEvent) {
        // A rejection the user hears of (not a watcher's quiet retry of a half-written file):
        // the running build's file coming back afterwards is worth saying.
        if case .failed = event.outcome, event.oldVersion != nil {
            table.noteRejectedBuild(realPath: FilePaths.resolvingSymlinks(event.path))
        }
        switch event.outcome {
        case .failed: logger.warning("\(event.summary)")
        case .unchanged: logger.debug("\(event.summary)")
        default: logger.info("\(event.summary)")
        }
        swapObservers.notify(event)
    }
}
