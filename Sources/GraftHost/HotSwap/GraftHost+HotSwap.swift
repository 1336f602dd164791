import FoundationEssentials
import Synchronization

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
        reloads.withLock { _ in
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
        let old = state.withLock { $0.plugins[real] }
        func event(
            _ outcome: SwapEvent.Outcome, new: PluginInfo? = nil, recreated: [SwapEvent.Recreated] = [],
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
                let failed = state.withLock { state in
                    defer { state.failures.removeAll { $0.path == path } }
                    return state.failures.contains { $0.path == path }
                }
                if failed { return event(.removed) }
                return event(.failed(GraftError(.pluginNotFound, "\(path) does not exist.", path: path)))
            }
            remove(realPath: real)
            return event(.removed)
        }
        let file: PluginFile
        let hash: String
        do throws(GraftError) {
            file = try PluginFile(opening: path)
            hash = try ContentHash.of(file)
        } catch {
            return event(.failed(error))
        }
        if !force, old != nil, state.withLock({ $0.hashes[real] }) == hash { return event(.unchanged) }

        let plugin: LoadedPlugin
        do throws(GraftError) {
            try checkTrust(file)
            try checkPin(file)
            // A build that crashes or hangs while loading does so in the
            // scanner child; the running build keeps serving.
            let description = try describe(file, mapping: .copy)
            if let description, let runner = runner(for: description) {
                // Isolated: the new build runs in a new child, which must
                // create every live instance's component before it takes over.
                plugin = LoadedPlugin(described: description, runner: runner)
                let previous = state.withLock { state in
                    defer { state.identities[file.realPath] = file.identity }
                    return state.identities[file.realPath]
                }
                do throws(GraftError) {
                    try rehearse(plugin, for: old)
                } catch {
                    state.withLock { $0.identities[file.realPath] = previous }
                    throw error
                }
            } else {
                // Mapped from a private copy: the file may be rewritten again
                // while this build runs.
                plugin = try loader.load(file, mapping: .copy, images: images)
            }
        } catch {
            return event(.failed(error))
        }

        guard let old else {
            do throws(GraftError) {
                try register(plugin, file: file)
            } catch {
                return event(.failed(error))
            }
            state.withLock { $0.hashes[real] = hash }
            return event(.loaded, new: plugin.info)
        }

        do throws(GraftError) {
            try publish(plugin, replacing: old, file: file, hash: hash)
        } catch {
            return event(.failed(error), new: plugin.info)
        }

        // The new build serves every lookup from here on; now move the live
        // instances of the old build over.
        var recreated: [SwapEvent.Recreated] = []
        var failed: [(instanceID: String, error: GraftError)] = []
        var orphaned: [String] = []
        let published = registry.snapshot.components
        for instance in tracker.cores where instance.component.plugin === old {
            let reference = instance.component.reference
            guard let replacement = published[reference], replacement.plugin === plugin else {
                orphaned.append(instance.id)
                logger.warning(
                    "\(reference) is gone from the new build of \(path); instance '\(instance.id)' stays on the old build until it closes.")
                continue
            }
            do throws(GraftError) {
                let outcome = try instance.move(to: replacement)
                recreated.append(.init(instanceID: instance.id, component: reference, stateCarried: outcome == .stateCarried))
                if outcome == .startedFresh {
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

    /// Publishes `plugin` in place of `old`: validators, actions and
    /// components, each in one step, after every check has passed.
    private func publish(_ plugin: LoadedPlugin, replacing old: LoadedPlugin, file: PluginFile, hash: String) throws(GraftError) {
        let realPath = file.realPath
        let result: Result<Void, GraftError> = state.withLock { state in
            if let other = state.plugin(withID: plugin.info.id, except: realPath) {
                return .failure(GraftError(
                    .duplicatePlugin,
                    "plugin '\(plugin.info.id)' at \(plugin.info.path) is already loaded from \(other.info.path); the running build stays.",
                    path: plugin.info.path))
            }
            let prepared: ValidatorRegistry.Prepared
            do throws(GraftError) {
                prepared = try validatorRegistry.prepare(plugin, replacing: old)
                try actionRegistry.check(plugin, replacing: old)
                try registry.swap(
                    replacing: old, with: plugin.info.components.map { RegisteredComponent(contract: $0, plugin: plugin) })
            } catch {
                return .failure(error)
            }
            validatorRegistry.register(plugin, prepared: prepared, replacing: old)
            actionRegistry.register(plugin, replacing: old)
            state.insert(plugin, at: realPath)
            state.files = state.files.filter { $0.value != realPath }
            state.files[file.identity.file] = realPath
            state.hashes[realPath] = hash
            state.removedInUse.remove(realPath)
            return .success(())
        }
        try result.get()
    }

    /// The file is gone: unregister now if no instance uses the plugin, else
    /// once the last one closes.
    func remove(realPath: String) {
        guard let plugin = state.withLock({ $0.plugins[realPath] }) else { return }
        // Instances are asked outside the state lock: an instance's own lock
        // may be held by a thread that is calling into the host.
        if tracker.cores.contains(where: { $0.component.plugin === plugin }) {
            state.withLock { state in
                state.removedInUse.insert(realPath)
                tracker.removalsPending.store(true, ordering: .releasing)
            }
            finishRemovals()  // in case the last instance closed meanwhile
        } else {
            forgetFile(realPath: realPath)
        }
    }

    /// Unregisters removed files whose last instance has closed.
    func finishRemovals() {
        let pending = state.withLock { state in
            if state.removedInUse.isEmpty { tracker.removalsPending.store(false, ordering: .releasing) }
            return state.removedInUse
        }
        guard !pending.isEmpty else { return }
        let live = tracker.cores
        for realPath in pending {
            let plugin = state.withLock { $0.plugins[realPath] }
            if let plugin, live.contains(where: { $0.component.plugin === plugin }) { continue }
            forgetFile(realPath: realPath)
        }
    }

    private func forgetFile(realPath: String) {
        let plugin: LoadedPlugin? = state.withLock { state in
            state.removedInUse.remove(realPath)
            state.hashes[realPath] = nil
            state.files = state.files.filter { $0.value != realPath }
            state.order.removeAll { $0 == realPath }
            return state.remove(at: realPath)
        }
        guard let plugin else { return }
        registry.removeAll(providedBy: plugin)
        validatorRegistry.removeAll(providedBy: plugin)
        actionRegistry.removeAll(providedBy: plugin)
        logger.info("unregistered \(plugin.info.id): \(plugin.info.path) was removed")
    }

    // MARK: Observers

    /// Calls `observer` with every reload's event, on the reloading thread.
    /// Returns a token for `removeSwapObserver`.
    @discardableResult
    public func addSwapObserver(_ observer: @escaping @Sendable (SwapEvent) -> Void) -> Int {
        // A counter, not the largest token + 1: a removed token is never handed out again.
        let token = observerTokens.wrappingAdd(1, ordering: .relaxed).newValue
        swapObservers.withLock { $0[token] = observer }
        return token
    }

    public func removeSwapObserver(_ token: Int) {
        swapObservers.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// Every reload's event from now on, until the stream is dropped.
    public func swapEvents() -> AsyncStream<SwapEvent> {
        let (stream, continuation) = AsyncStream<SwapEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let token = addSwapObserver { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeSwapObserver(token) }
        return stream
    }

    func notifySwap(_ event: SwapEvent) {
        switch event.outcome {
        case .failed: logger.warning("\(event.summary)")
        case .unchanged: logger.debug("\(event.summary)")
        default: logger.info("\(event.summary)")
        }
        for observer in swapObservers.withLock({ Array($0.values) }) { observer(event) }
    }
}
