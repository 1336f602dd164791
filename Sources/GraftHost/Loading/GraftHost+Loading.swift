import Dispatch
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// Loading: discover → open once → one file, one plugin → trust → describe
/// (from the registry cache, else in the scanner child) → register → map.
extension GraftHost {
    /// Loads every plugin file on the search path. Failures are logged and
    /// kept in `failures`; the rest load regardless. Plugins that scanned
    /// clean are registered at once and, by default, mapped the first time
    /// something of theirs is used (`GraftConfiguration.mapping`): into this
    /// process, or into their runner child when the host isolates them.
    public func loadPlugins() {
        let (entries, problems) = searchPath.discoverEntries(signatures: configuration.signatures.isActive && cache != nil)
        for problem in problems { recordFailure(problem.error, path: problem.path) }
        scanTogether(entries)
        defer { table.dropScans() }
        // Files the registry cache knows take the quick way: what `stat` said
        // of them, their folders' trust checked once per folder, and one
        // registration for all. Everything else, and everything odd, goes
        // through `load`, which opens, checks and scans each file.
        let user = geteuid()
        let backends = PluginTelemetry.Backends.current
        var quick: [PluginTable.Entry] = []
        var seen: Set<FileKey> = []
        // Registered in search order: the quick ones found so far go first.
        func flush() {
            for (path, error) in table.register(quick) {
                recordFailure(error, path: path)
                logger.error("\(error)", metadata: ["path": "\(path)"])
            }
            quick.removeAll()
        }
        for entry in entries {
            if let described = quickDescription(of: entry, user: user, telemetry: backends), let file = described.file, seen.insert(file).inserted {
                quick.append(described)
                continue
            }
            flush()
            do {
                _ = try load(pluginAt: entry.path, mapping: configuration.mapping)
            } catch {
                logger.error("\(error)", metadata: ["path": "\(entry.path)"])
            }
        }
        flush()
        saveCache()
        if entries.isEmpty, problems.isEmpty {
            logger.warning(
                "plugin_not_found: the search path found no plugin (it searched \(searchPath.folders.isEmpty ? "no folder" : searchPath.folders.joined(separator: ", "))).")
        }
        checkGrants()
    }

    /// Warns of each grant that means nothing the host app may have meant
    /// (`grantWarnings`).
    func checkGrants() {
        for (message, path) in grantWarnings() { logger.warning("\(message)", metadata: path.map { ["plugin": "\($0)"] }) }
    }

    /// A `grant_unused` warning for each grant to a plugin id no loaded
    /// plugin has (a typo, say; the closest id is suggested), and for each
    /// permission granted that the plugin does not declare (granted all the
    /// same), with the plugin's path when there is one; by plugin id.
    package func grantWarnings() -> [(message: String, path: String?)] {
        let grants = configuration.sandbox.grants.filter { !$0.value.isEmpty }
        guard !grants.isEmpty else { return [] }
        let plugins = table.loaded.map(\.info)
        var warnings: [(message: String, path: String?)] = []
        for (id, granted) in grants.sorted(by: { $0.key < $1.key }) {
            guard let plugin = plugins.first(where: { $0.id == id }) else {
                let near = NearMiss.closest(to: id, among: plugins.map(\.id)).map { " Did you mean '\($0)'?" } ?? ""
                let what = granted.map(\.description).joined(separator: ", ")
                warnings.append(("grant_unused: \(what) is granted to plugin '\(id.escapingControls)', but no loaded plugin has that id.\(near)", nil))
                continue
            }
            let declared = plugin.permissions.map(\.permission)
            let undeclared = granted.filter { !$0.isCovered(by: declared) }
            guard !undeclared.isEmpty else { continue }
            let declares = declared.isEmpty ? "it declares none" : "it declares \(declared.map(\.description).joined(separator: ", "))"
            let what = undeclared.map(\.description).joined(separator: ", ")
            warnings.append(("grant_unused: plugin '\(id)' is granted \(what), which it does not declare (\(declares)); granted all the same.", plugin.path))
        }
        return warnings
    }

    /// Scans, all at once, the files the registry cache does not know: in
    /// flight several at a time, and on two scanner children when there are
    /// many (a big folder seen for the first time). Both children are started
    /// first and exec while the files are opened and checked.
    /// What they declare goes into the cache as `describe` would put it, and
    /// is kept for each file's own load, which then registers it without
    /// scanning again. Files that cannot be opened or are refused by the trust
    /// rules or the pins are left to that load, which reports them.
    private func scanTogether(_ entries: [SearchPath.Entry]) {
        guard let scanner, entries.count > 1 else { return }
        let unknown = entries.filter { entry in
            guard (entry.status.st_mode & S_IFMT) == S_IFREG else { return false }
            // A WebAssembly module is described by its own entry, in WasmKit, not by a scanner.
            if entry.path.hasSuffix(WasmFile.suffix) { return false }
            guard let cache else { return true }
            return !cache.knows(entry.realPath, FileIdentity(entry.status))
        }
        guard unknown.count > 1 else { return }
        let second =
            unknown.count >= Self.filesForTwoScanners && ProcessInfo.processInfo.activeProcessorCount > 1
            ? scanner.sibling() : nil
        // The second child has no more work once this returns: it exits while the host goes on.
        defer { second?.retire() }
        // Both start now, from this thread: the second half's worker thread
        // may wait a few milliseconds for a CPU while the first child starts.
        scanner.startAhead()
        second?.startAhead()
        let kept = Locked<[FileIdentity: ScanOutcome]>([:])
        let signatures = Locked<[FileIdentity: SignatureCheck.Evidence]>([:])
        let policy = configuration.signatures
        // A chunk at a time: each file stays open while it is scanned, and a
        // folder of thousands must not take the descriptors the scanners need.
        for start in stride(from: 0, to: unknown.count, by: Self.filesPerChunk) {
            let chunk = unknown[start..<min(start + Self.filesPerChunk, unknown.count)]
            let halves = second != nil && chunk.count >= Self.filesForTwoScanners ? 2 : 1
            let split = chunk.startIndex + (halves == 2 ? (chunk.count + 1) / 2 : chunk.count)
            DispatchQueue.concurrentPerform(iterations: halves) { half in
                let scanning = half == 0 ? scanner : second!
                scanning.startAhead()
                let files = openForScanning(half == 0 ? chunk[..<split] : chunk[split...])
                // Signatures are read, hashed and verified while the child
                // maps the files: what they declare is judged at each load.
                var evidence: [FileIdentity: SignatureCheck.Evidence] = [:]
                var gathered = 0
                func gatherNext() {
                    guard policy.isActive, gathered < files.count else { return }
                    let file = files[gathered].file
                    gathered += 1
                    evidence[file.identity] = SignatureCheck.gather(file, policy: policy)
                }
                let outcomes = scanning.scan(files.map(\.file), mapping: imageMapping, meanwhile: gatherNext)
                while gathered < files.count, policy.isActive { gatherNext() }
                var found: [FileIdentity: ScanOutcome] = [:]
                for ((file, hash), outcome) in zip(files, outcomes) {
                    switch outcome {
                    case .described(let info): cache?.record(file.realPath, file.identity, .described(info), hash: hash)
                    case .crashed(let error): cache?.record(file.realPath, file.identity, .quarantined(error), hash: hash)
                    case .refused, nil: break
                    }
                    if let outcome { found[file.identity] = outcome }
                }
                kept.withLock { $0.merge(found) { first, _ in first } }
                signatures.withLock { $0.merge(evidence) { first, _ in first } }
            }
        }
        table.keepScans(kept.withLock { $0 }, signatures: signatures.withLock { $0 })
    }

    /// `entries` opened, checked against the trust rules and the pins, with
    /// their hashes when pinned; those that fail are left out.
    private func openForScanning(_ entries: ArraySlice<SearchPath.Entry>) -> [(file: PluginFile, hash: String?)] {
        var files: [(file: PluginFile, hash: String?)] = []
        for entry in entries {
            guard let file = try? PluginFile(opening: entry), !table.isLoaded(file.identity.file),
                trust.admits(trust.violation(of: file)),
                case .success(let hash) = Result(catching: { () throws(GraftError) in try checkPin(file) })
            else { continue }
            files.append((file, hash))
        }
        return files
    }

    /// Files open and scanned at once, at most.
    static let filesPerChunk = 256

    /// From how many files on a cold start two scanners share the work.
    static let filesForTwoScanners = 32

    /// A plugin for `entry` straight from the registry cache, when `stat`
    /// says the file is the one described, it passes the trust rules and
    /// (when locked) its cached hash is pinned; else nil.
    private func quickDescription(of entry: SearchPath.Entry, user: uid_t, telemetry: PluginTelemetry.Backends) -> PluginTable.Entry? {
        let status = entry.status
        guard let cache, configuration.mapping == .onFirstUse, (status.st_mode & S_IFMT) == S_IFREG,
            status.st_mode & (S_IRUSR | S_IRGRP | S_IROTH) != 0, Int64(status.st_size) <= PluginFile.maximumSize
        else { return nil }
        let identity = FileIdentity(status)
        guard case .described(var info) = cache.lookup(entry.realPath, identity) else { return nil }
        if table.isLoaded(identity.file) { return nil }
        // An untrusted file takes the slow way, which refuses it or warns.
        if trust.violation(path: entry.path, realPath: entry.realPath, owner: status.st_uid, mode: status.st_mode, user: user) != nil {
            return nil
        }
        // A locked host hashes every file it loads (see `checkPin`): not from here.
        if pins != nil { return nil }
        // A signature the cache saw hold for this file and this signature
        // file, by a key still trusted for the id; anything else is checked in full.
        if configuration.signatures.isActive {
            let signatureFile = entry.signatureLooked ? entry.signature : SignatureCheck.signatureFile(besides: entry.realPath)
            switch SignatureCheck.quick(info, signatureFile: signatureFile, record: cache.signature(entry.realPath, identity), policy: configuration.signatures) {
            case .notAsked: break
            case .signed(let signer): info.signer = signer
            case .unknown: return nil
            }
        }
        info.path = entry.path
        info.imagePath = entry.realPath
        let plugin = describedPlugin(info, identity: identity, realPath: entry.realPath, telemetry: telemetry)
        // The identity goes in with the batch's registration, not under a lock of its own per plugin.
        return PluginTable.Entry(plugin: plugin, realPath: entry.realPath, file: identity.file, identity: plugin.runner != nil ? identity : nil)
    }

    /// A plugin known from its description, whose code runs in its runner
    /// child (a host that isolates) or is mapped here on first use. The
    /// caller records the identity of an isolated one (`setIdentity`, or with
    /// its registration).
    private func describedPlugin(
        _ info: PluginDescription, identity: FileIdentity, realPath: String, checkedHash: String? = nil,
        telemetry: PluginTelemetry.Backends = .current
    ) -> LoadedPlugin {
        if let runner = runner(for: info) {
            return LoadedPlugin(described: info, runner: runner, checkedHash: checkedHash, telemetry: telemetry)
        }
        return LoadedPlugin(described: info, checkedHash: checkedHash, telemetry: telemetry) { [weak self] plugin throws(GraftError) in
            guard let self else {
                throw GraftError(.pluginNotFound, "the host of \(plugin.info.path) is gone.", path: plugin.info.path)
            }
            return try self.map(plugin, describedAs: identity)
        }
    }

    /// Loads one plugin file and registers everything it declares, or
    /// nothing: checked, scanned in the scanner child, then mapped into this
    /// process at once (or, for a host that isolates its plugins, into the
    /// plugin's runner child on first use). Loading a file that is already
    /// loaded returns it again. A failure is thrown and also recorded in
    /// `failures`.
    @discardableResult
    public func load(pluginAt path: String) throws(GraftError) -> PluginDescription {
        defer { saveCache() }
        return try load(pluginAt: path, mapping: .atStart)
    }

    private func load(pluginAt path: String, mapping when: GraftConfiguration.Mapping) throws(GraftError) -> PluginDescription {
        do throws(GraftError) {
            let opened = try PluginFile(opening: path)
            if let known = table.plugin(loadedFrom: opened.identity.file) {
                if known.info.path == path { return known.info }
                throw GraftError(
                    .duplicatePlugin,
                    "\(path) is the same file as \(known.info.path) (device \(opened.identity.device), inode \(opened.identity.inode): a hard link or a symlink); plugin '\(known.info.id)' is loaded once, from \(known.info.path).",
                    path: path)
            }
            // What `stat` alone refuses is refused before anything is copied.
            try checkTrust(opened)
            let file = loadsFromCopies ? try opened.sealedCopy() : opened
            // The copy's hash: what a later first mapping holds its new copy to.
            let checkedHash = loadsFromCopies ? try ContentHash.of(file) : nil
            let hash = try checkPin(file)
            let plugin: LoadedPlugin
            // A WebAssembly module needs no scanner and no child: it runs contained in this process.
            if WasmFile.isModule(file) {
                plugin = try loadGuest(file, hash: hash)
            } else {
                plugin = try loadImage(file, path: path, hash: hash, checkedHash: checkedHash, mapping: when)
            }
            // A plugin that cannot register is dropped here, and its deinit
            // runs when the last reference goes.
            try register(plugin, file: file)
            // The hash lets a later reload skip an unchanged file; only a host
            // that expects reloads pays for it.
            if let checkedHash { table.setHash(checkedHash, of: file.realPath) }
            logger.debug(
                "registered \(plugin.info.id) \(plugin.info.version)\(plugin.isMapped ? "" : " (maps on first use)")",
                metadata: ["path": "\(path)", "components": "\(plugin.info.components.count)"])
            var info = plugin.info
            info.isMapped = plugin.isMapped
            return info
        } catch {
            recordFailure(error, path: path)
            throw error
        }
    }

    /// A shared library's plugin: described (by the scanner child, unless
    /// the host scans in process), then mapped here or in its runner child,
    /// at once or on first use.
    private func loadImage(
        _ file: PluginFile, path: String, hash: String?, checkedHash: String?, mapping when: GraftConfiguration.Mapping
    ) throws(GraftError) -> LoadedPlugin {
        let plugin: LoadedPlugin
        var description = try describe(file, hash: hash)
        if let described = description {
            if let hash { try checkPinnedPermissions(of: described, hash: hash) }
            description?.signer = try checkSignature(file, declaring: described, hash: hash)
        }
        if let description, isolates || when == .onFirstUse {
            plugin = describedPlugin(description, identity: file.identity, realPath: file.realPath, checkedHash: checkedHash)
            if plugin.runner != nil { table.setIdentity(file.identity, of: file.realPath) }
        } else {
            if description == nil { try requireScanForSignatures(file) }
            plugin = try loader.load(file, mapping: imageMapping, images: images)
            if let description, !plugin.info.declaresSame(as: description) { throw declaredDifferently(path) }
            if description == nil, let hash { try checkPinnedPermissions(of: plugin.info, hash: hash) }
        }
        return plugin
    }

    /// Refuses a file other users could have written, unless the host allows
    /// untrusted files (then it only warns).
    func checkTrust(_ file: PluginFile) throws(GraftError) {
        guard let violation = trust.violation(of: file) else { return }
        guard trust.policy.allowsUntrusted else { throw violation }
        logger.warning("loading an untrusted plugin: \(violation.message)", metadata: ["path": "\(file.path)"])
    }

    /// In locked mode, refuses a file whose content the lock file does not
    /// pin; returns the file's hash when it computed one.
    @discardableResult
    func checkPin(_ file: PluginFile) throws(GraftError) -> String? {
        guard let pins, let lockPath = configuration.lockFile else { return nil }
        let lock = try pins.get()
        // From the open file itself, never from the cache: anyone running as
        // this user can rewrite the cache (and recompute its checksum).
        let hash = try ContentHash.of(file)
        cache?.remember(hash: hash, of: file.realPath, file.identity)
        if let violation = lock.violation(path: file.path, hash: hash, lockPath: lockPath) { throw violation }
        return hash
    }

    /// Refuses a file whose publisher's signature the host asks for and
    /// does not hold (`SignaturePolicy`), and in locked mode a file that its
    /// lock entry's publisher pin refuses (`hash` is then the file's);
    /// returns who signed it, when either checked.
    @discardableResult
    func checkSignature(_ file: PluginFile, declaring info: PluginDescription, hash: String?) throws(GraftError) -> PluginSigner? {
        var evidence = table.takeSignatureEvidence(of: file.identity)
        // Gathered from the file itself: a sealed copy uses it only when its bytes are the ones verified.
        if file.isSealed, case .success(let hashes)? = evidence?.hashes, (try? ContentHash.of(file)) != hashes.sha256 { evidence = nil }
        if evidence?.realPath != file.realPath { evidence = nil }
        let checked = try SignatureCheck.checkRecording(file, declaring: info, policy: configuration.signatures, evidence: evidence)
        if let checked { cache?.remember(signature: checked.record, of: file.realPath, file.identity) }
        let signer = checked?.signer
        guard let hash, case .success(let lock) = pins, let lockPath = configuration.lockFile else { return signer }
        return try lock.publisherViolation(
            of: file, declaring: info, hash: hash, lockPath: lockPath, revokedKeys: configuration.signatures.revokedKeys) ?? signer
    }

    /// A host that judges signatures (its policy, or a lock's publisher pins)
    /// judges a file before any of its code runs here: only what its scanner
    /// child read of it can be judged, so without one the file is refused.
    func requireScanForSignatures(_ file: PluginFile) throws(GraftError) {
        let pinsPublishers = (try? pins?.get())?.pinsPublishers ?? false
        guard configuration.signatures.isActive || pinsPublishers else { return }
        throw GraftError(
            .scannerUnavailable,
            "\(file.path) was not loaded: this host checks publishers' signatures, which it does before any plugin code runs in it, from what its scanner child read; it has no scanner (--no-scanner, Scanning(inChild: false)).",
            path: file.path)
    }

    /// In locked mode: a pinned plugin may declare only the permissions its
    /// lock entry grants.
    func checkPinnedPermissions(of info: PluginDescription, hash: String) throws(GraftError) {
        guard case .success(let lock) = pins, let lockPath = configuration.lockFile else { return }
        if let violation = lock.permissionViolation(of: info, hash: hash, lockPath: lockPath) { throw violation }
    }

    var imageMapping: PluginLoader.ImageSource { loadsFromCopies ? .copy : .descriptorName }

    /// What `file` declares, from the cache when the file has not changed,
    /// else from the scanner child (and the answer goes into the cache). A
    /// file that crashed or hung a scanner, now or before, is refused: it is
    /// quarantined and never loaded in process. Nil when there is no scanner:
    /// only loading the file in process can tell.
    func describe(_ file: PluginFile, mapping: PluginLoader.ImageSource? = nil, hash: String? = nil) throws(GraftError) -> PluginDescription? {
        let scannedTogether = table.takeScan(of: file.identity)
        switch scannedTogether == nil ? cache?.lookup(file.realPath, file.identity) : nil {
        case .described(var info):
            info.path = file.path
            info.imagePath = file.realPath
            return info
        case .quarantined(let error):
            throw GraftError(
                error.code, "\(file.path) is quarantined: \(error.message) (`graft quarantine clear \(file.path)` lifts it; so does rebuilding it.)",
                path: file.path, symbol: error.symbol)
        case nil:
            break
        }
        switch scannedTogether ?? scanner?.scan(file, mapping: mapping ?? imageMapping) {
        case nil:
            // No scanner child: the caller maps the file here, which only a
            // host without the sandbox may do.
            guard configuration.sandbox.mode == .off || !configuration.scanning.inChild else {
                throw scanner?.startFailure.map { GraftError($0.code, "\(file.path) was not loaded: \($0.message)", path: file.path) }
                    ?? GraftError(
                        .scannerUnavailable,
                        "\(file.path) was not loaded: no graft-child was found to load it in a sandboxed child (beside this executable, through GRAFT_CHILD or on PATH), and plugins never load unsandboxed unless the sandbox is off.",
                        path: file.path)
            }
            return nil
        case .described(var info):
            cache?.record(file.realPath, file.identity, .described(info), hash: hash)
            info.imagePath = file.realPath
            return info
        case .refused(let errors):
            throw PluginLoader.Problems(errors: errors).first(path: file.path)
        case .crashed(let error):
            cache?.record(file.realPath, file.identity, .quarantined(error), hash: hash)
            throw error
        }
    }

    /// Opens an isolated plugin's file for its runner child, with the same
    /// checks as a first mapping (`reopen`).
    func openForRunner(_ plugin: LoadedPlugin) throws(GraftError) -> PluginFile {
        let (file, changed) = try reopen(plugin) { table.identity(of: $0.realPath) }
        if changed { table.setIdentity(file.identity, of: file.realPath) }
        return file
    }

    /// Opens the file of a plugin registered from its description, checked
    /// as a first load is: its trust and, when it is no longer the file
    /// described (`identity`), its pin and a new scan, which must declare the
    /// same things (a changed plugin comes in through `reload`, not behind
    /// the registry's back). Returns it, and whether it changed.
    func reopen(
        _ plugin: LoadedPlugin, describedAs identity: (PluginFile) -> FileIdentity?
    ) throws(GraftError) -> (file: PluginFile, changed: Bool) {
        let path = plugin.info.path
        let opened = try PluginFile(opening: path)
        try checkTrust(opened)
        let file = loadsFromCopies ? try opened.sealedCopy() : opened
        guard file.identity != identity(file) else {
            // Same size and times is not proof of the same bytes (a rewrite
            // within one tick of the clock keeps them): a copy is held to the
            // hash of the one that was checked.
            if let checked = plugin.checkedHash, file.isSealed, try ContentHash.of(file) != checked {
                throw GraftError(
                    .pluginChanged,
                    "\(path) changed since it was checked, though its size and times did not; it is not mapped. Reload it (hot swap) to check and use the new build.",
                    path: path)
            }
            return (file, false)
        }
        let hash = try checkPin(file)
        let rescanned = try describe(file)
        if let rescanned, !rescanned.declaresSame(as: plugin.info) {
            throw GraftError(
                .invalidDescriptor,
                "\(path) changed since it was registered and now declares other components, validators or actions; reload it (hot swap) to use the new build.",
                path: path)
        }
        try checkSignature(file, declaring: rescanned ?? plugin.info, hash: hash)
        return (file, true)
    }

    /// An isolated plugin crashed its runners too often: it is quarantined
    /// (in the cache, so other hosts refuse it too) until its file changes.
    func quarantine(_ plugin: LoadedPlugin, _ error: GraftError) {
        plugin.telemetry?.quarantined()
        recordFailure(error, path: plugin.info.path)
        guard let cache, let file = try? PluginFile(opening: plugin.info.path) else { return }
        cache.record(file.realPath, file.identity, .quarantined(error))
        saveCache()
    }

    /// Maps a plugin registered from its description, the first time it is
    /// used, from its file checked by `reopen`.
    func map(_ plugin: LoadedPlugin, describedAs identity: FileIdentity) throws(GraftError) -> LoadedPlugin.Image {
        let path = plugin.info.path
        do throws(GraftError) {
            let (file, _) = try reopen(plugin) { _ in identity }
            let loaded = try loader.load(file, mapping: imageMapping, images: images)
            guard loaded.info.declaresSame(as: plugin.info) else { throw declaredDifferently(path) }
            logger.debug("mapped \(plugin.info.id) on first use", metadata: ["path": "\(path)"])
            return loaded.takeImage()
        } catch {
            recordFailure(error, path: path)
            throw error
        }
    }

    func declaredDifferently(_ path: String) -> GraftError {
        GraftError(
            .invalidDescriptor,
            "\(path) declared other components, validators or actions when loaded into the host than when it was scanned; a plugin must describe itself the same way every time. It is not used.",
            path: path)
    }

    func recordFailure(_ error: GraftError, path: String) { table.recordFailure(error, path: path) }

    func saveCache() {
        guard let problem = cache?.saveReportingOnce() else { return }
        logger.warning("registry cache not saved: \(problem); plugins will be scanned again next time.")
    }

    // MARK: Quarantine

    /// Files that crashed or hung the scanner, by real path, with why. They
    /// are never loaded in process until they change or the quarantine is
    /// lifted.
    public var quarantined: [PluginFailure] {
        (cache?.quarantined ?? []).map { PluginFailure(path: $0.realPath, error: $0.error) }
    }

    /// Lifts the quarantine of the file at `path`, or of every file; returns
    /// the real paths lifted.
    @discardableResult
    public func clearQuarantine(pluginAt path: String? = nil) -> [String] {
        guard let cache else { return [] }
        let realPath = path.map { FilePaths.realPath($0) ?? $0 }
        let lifted = cache.clearQuarantine(realPath)
        saveCache()
        return lifted
    }
}
