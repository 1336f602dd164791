import Crypto
import Dispatch
import FoundationEssentials
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// What earlier scans found, so that a host starts, and `graft list`
/// answers, without loading any plugin whose file has not changed (after
/// GStreamer's registry cache). One file per format, ABI and architecture,
/// `registry-v1-x86_64-abi1.0.bin` under `$XDG_CACHE_HOME/graft/` (else
/// `~/.cache/graft/`):
///
///     "GRFTCACH", format u16, ABI major u16, minor u16, architecture, host version,
///     entries (real path, device, inode, size, mtime ns, ctime ns, kind, what it holds),
///     SHA-256 of everything before it
///
/// An entry is used only while its file has the same real path, device,
/// inode, size and change times; any other file is scanned again. Entries
/// are of two kinds: a plugin's description, and a quarantine (a file that
/// crashed or hung the scanner, with that error), which holds until the file
/// changes or `graft quarantine clear` lifts it. Only descriptions are kept:
/// the code loaded is always the file's own. The file is replaced whole (a
/// temporary file, then rename; no fsync: the checksum catches what a crash
/// leaves half-written); one that is truncated, garbage, from
/// another version, or not this user's own is ignored with a warning and
/// rebuilt; an unwritable folder (a read-only home) only costs the speed-up.
///
/// The file is read and decoded on a Dispatch pool thread, started with the
/// cache: a host walks its search path meanwhile, and the first use of an
/// entry waits for the read (a warm `graft list` spends a fifth of its time
/// decoding the file, a quarter walking the folders).
final class RegistryCache: @unchecked Sendable {
    // Guarded by `lock`, once `reading` is done.
    let file: String
    private let lock = Lock()
    private let reading = DispatchGroup()
    private var entries: [String: Entry] = [:]
    private var changed = false
    /// Entries removed here, which a merge with the file must not bring back.
    private var removed: Set<String> = []
    /// Entries recorded here since the last save, from files just opened.
    private var recorded: Set<String> = []
    /// Why the file on disk was not used, if it was not (for one warning).
    var problem: String? {
        reading.wait()
        return lock.withLock { readProblem }
    }
    private var readProblem: String?
    /// Whether a failure to save was already reported.
    private var saveFailureReported = false

    /// 2: components carry their interactions (ABI 1.1); 3: plugins carry
    /// their permissions (ABI 1.2); 4: components carry their stories (ABI 1.3);
    /// 5: entries carry the signature that held.
    static let formatVersion: UInt16 = 5
    static let magic = Array("GRFTCACH".utf8)
    /// Entries beyond this are dropped, oldest scans first.
    static let maximumEntries = 20_000

    enum Kind: UInt8, Sendable {
        case described = 0
        case quarantined = 1
    }

    struct Entry: Sendable {
        var realPath: String
        var identity: FileIdentity
        var outcome: Outcome
        /// The file's SHA-256, when a scan computed it (pinning).
        var hash: String?
        /// When the entry was written (seconds since the epoch), to keep the newest.
        var written: Int64
        /// The publisher's signature that last held for the file (see `SignatureCheck.quick`).
        var signature: SignatureCheck.Record?
    }

    enum Outcome: Sendable {
        case described(PluginDescription)
        case quarantined(GraftError)
    }

    /// The cache folder for `environment`: `$XDG_CACHE_HOME/graft`, else `~/.cache/graft`.
    static func defaultFolder(environment: [String: String]? = nil) -> String? {
        if let xdg = ProcessEnvironment.value("XDG_CACHE_HOME", in: environment), xdg.hasPrefix("/") { return xdg + "/graft" }
        if let home = ProcessEnvironment.value("HOME", in: environment), home.hasPrefix("/") { return home + "/.cache/graft" }
        return nil
    }

    static func fileName() -> String {
        "registry-v\(formatVersion)-\(Wire.architecture)-abi\(ABIVersion.host).bin"
    }

    /// Reads the file in `folder` in the background; `onProblem` hears, from
    /// that thread, why it was not used, if it was not.
    init(folder: String, onProblem: @escaping @Sendable (String) -> Void = { _ in }) {
        file = folder + "/" + Self.fileName()
        reading.enter()
        // On the pool, whose threads are already there (a thread of its own
        // cost a warm start a tenth). The host waiting for this read may run
        // on a pool thread itself: the pool adds threads when its workers
        // block (tested with every pool thread making a host).
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            var problem: String?
            let read = read(problem: &problem)
            lock.withLock {
                entries = read
                readProblem = problem
            }
            if let problem { onProblem(problem) }
            reading.leave()
        }
    }

    /// The entries, once read, under the lock.
    private func withEntries<T>(_ body: () -> T) -> T {
        reading.wait()
        return lock.withLock(body)
    }

    // MARK: Entries

    /// What the cache holds for `realPath` while its file is still `identity`.
    func lookup(_ realPath: String, _ identity: FileIdentity) -> Outcome? {
        withEntries { entries[realPath].flatMap { $0.identity == identity ? $0.outcome : nil } }
    }

    /// Whether the cache holds anything for `realPath` while its file is
    /// still `identity` (without copying what).
    func knows(_ realPath: String, _ identity: FileIdentity) -> Bool {
        withEntries { entries[realPath]?.identity == identity }
    }

    /// Keeps `hash` with the entry of `realPath` while the file is unchanged,
    /// so locked hosts hash each file once.
    func remember(hash: String, of realPath: String, _ identity: FileIdentity) {
        withEntries {
            guard entries[realPath]?.identity == identity else { return }
            entries[realPath]!.hash = hash
            changed = true
        }
    }

    /// The signature record of `realPath`'s entry while its file is still `identity`.
    func signature(_ realPath: String, _ identity: FileIdentity) -> SignatureCheck.Record? {
        withEntries { entries[realPath].flatMap { $0.identity == identity ? $0.signature : nil } }
    }

    /// Keeps `signature` with the entry of `realPath` while the file is unchanged.
    func remember(signature: SignatureCheck.Record, of realPath: String, _ identity: FileIdentity) {
        withEntries {
            guard entries[realPath]?.identity == identity, entries[realPath]?.signature != signature else { return }
            entries[realPath]!.signature = signature
            changed = true
        }
    }

    func record(_ realPath: String, _ identity: FileIdentity, _ outcome: Outcome, hash: String? = nil) {
        reading.wait()
        lock.lock()
        defer { lock.unlock() }
        removed.remove(realPath)
        recorded.insert(realPath)
        // A hash or a signature already known for the same file stays with the new entry.
        let same = entries[realPath].flatMap { $0.identity == identity ? $0 : nil }
        entries[realPath] = Entry(
            realPath: realPath, identity: identity, outcome: outcome, hash: hash ?? same?.hash, written: Int64(time(nil)),
            signature: same?.signature)
        changed = true
    }

    /// Every quarantined file, by real path.
    var quarantined: [(realPath: String, error: GraftError)] {
        withEntries {
            entries.values.compactMap { entry in
                if case .quarantined(let error) = entry.outcome { (entry.realPath, error) } else { nil }
            }.sorted { $0.realPath < $1.realPath }
        }
    }

    /// Lifts the quarantine of `realPath`, or of every file; returns the real paths lifted.
    @discardableResult
    func clearQuarantine(_ realPath: String? = nil) -> [String] {
        reading.wait()
        lock.lock()
        defer { lock.unlock() }
        let lifted = entries.values.filter { entry in
            guard case .quarantined = entry.outcome else { return false }
            return realPath == nil || entry.realPath == realPath
        }.map(\.realPath)
        for path in lifted {
            entries[path] = nil
            removed.insert(path)
        }
        if !lifted.isEmpty { changed = true }
        return lifted.sorted()
    }

    // MARK: The file

    /// `save()`, returning why it could not only the first time: a read-only
    /// home costs only the speed-up, and is worth one warning per host.
    func saveReportingOnce() -> String? {
        guard let problem = save() else { return nil }
        return lock.withLock {
            defer { saveFailureReported = true }
            return saveFailureReported ? nil : problem
        }
    }

    /// Writes the entries if anything changed, merged with what other
    /// processes wrote meanwhile. Returns why it could not, if it could not.
    @discardableResult
    func save() -> String? {
        reading.wait()
        lock.lock()
        defer { lock.unlock() }
        guard changed else { return nil }
        // Another process may have written since we read: keep its entries
        // too, ours winning; drop entries whose file is gone or changed.
        var ignored: String?
        let onDisk = read(problem: &ignored)
        var merged = entries
        if !onDisk.isEmpty {
            merged.reserveCapacity(entries.count + onDisk.count)
            for (path, entry) in onDisk where merged[path] == nil && !removed.contains(path) { merged[path] = entry }
        }
        // Entries recorded here describe files just opened: only the others need a stat.
        let gone = merged.filter { !recorded.contains($0.key) && !Self.stillMatches($0.value) }.keys
        for path in gone { merged[path] = nil }
        if merged.count > Self.maximumEntries {
            let newest = merged.values.sorted { $0.written > $1.written }.prefix(Self.maximumEntries)
            merged = Dictionary(uniqueKeysWithValues: newest.map { ($0.realPath, $0) })
        }
        let folder = FilePaths.folder(of: file)
        // The cache's own folder, this user's only; the folders above (~/.cache, say) as usual.
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                return "could not create \(folder): \(String(describing: error))"
            }
        }
        if let problem = folderProblem() { return problem }
        let bytes = Self.encode(merged)
        let temporary = "\(file).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return "could not write \(temporary): \(String(cString: strerror(errno)))" }
        let wroteAll = bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
        // No fsync (of the file or its folder): it cost a cold scan about a
        // millisecond, and buys nothing here. A file that a power cut leaves
        // empty or half-written fails its checksum and is rebuilt, and a
        // cache lost whole costs one scan, in the scanner child.
        close(descriptor)
        guard wroteAll, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "could not write \(file): \(reason)"
        }
        entries = merged
        changed = false
        removed = []
        recorded = []
        return nil
    }

    private static func stillMatches(_ entry: Entry) -> Bool {
        var status = stat()
        guard stat(entry.realPath, &status) == 0 else { return false }
        return UInt64(status.st_dev) == entry.identity.device && UInt64(status.st_ino) == entry.identity.inode
            && Int64(status.st_size) == entry.identity.size
    }

    /// Why the cache's folder may not be trusted, or nil: it must be a real
    /// folder (not a link) that only this user owns and can write, or
    /// another user could plant a cache there (with forged descriptions).
    private func folderProblem() -> String? {
        let folder = FilePaths.folder(of: file)
        var status = stat()
        guard lstat(folder, &status) == 0 else { return nil }  // made by save(), with mode 0700
        guard (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == geteuid(), status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return "\(folder) is not a folder of this user's that only this user can write: the cache in it is ignored and not written"
        }
        return nil
    }

    /// The file's entries; none, and why in `problem`, when it cannot be used.
    private func read(problem: inout String?) -> [String: Entry] {
        func ignored(_ why: String) -> [String: Entry] {
            problem = why
            return [:]
        }
        if let problem = folderProblem() { return ignored(problem) }
        // O_NONBLOCK: a FIFO planted at the cache's name must not hang the host.
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return [:] }  // no cache yet
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return [:] }
        guard status.st_uid == geteuid(), status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return ignored("\(file) is not this user's own file, or others can write to it: ignored")
        }
        guard status.st_size <= 256 << 20 else {
            return ignored("\(file) is \(status.st_size) bytes, far more than a cache needs: ignored and rebuilt")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let done = bytes.withUnsafeMutableBytes { readAll(into: $0, from: descriptor, at: 0) }
        do throws(Wire.Violation) {
            return try Self.decode(bytes[0..<done])
        } catch {
            return ignored("\(file) could not be read (\(error.description)): ignored and rebuilt")
        }
    }

    // MARK: Encoding

    static func encode(_ entries: [String: Entry]) -> [UInt8] {
        var writer = WireWriter()
        writer.bytes += magic
        writer.u16(formatVersion)
        writer.u16(UInt16(ABIVersion.host.major))
        writer.u16(UInt16(ABIVersion.host.minor))
        writer.string(Wire.architecture)
        writer.string(GraftHost.version)
        // Sorted by path (the keys, not the entries: no description is copied to sort).
        writer.bytes.reserveCapacity(4096 + entries.count * 512)
        writer.list(entries.keys.sorted().map { entries[$0]! }) { writer, entry in
            writer.string(entry.realPath)
            writer.identity(entry.identity)
            writer.i64(entry.written)
            writer.optional(entry.hash)
            writer.bool(entry.signature != nil)
            if let signature = entry.signature {
                writer.identity(signature.signatureFile)
                writer.string(signature.keyID)
                writer.u32(UInt32(signature.key.count))
                writer.bytes += signature.key
            }
            switch entry.outcome {
            case .described(let info):
                writer.u8(Kind.described.rawValue)
                writer.string(info.path)
                writer.plugin(info)
            case .quarantined(let error):
                writer.u8(Kind.quarantined.rawValue)
                writer.error(error)
            }
        }
        writer.bytes += Self.checksum(writer.bytes[...])
        return writer.bytes
    }

    /// SHA-256 over raw bytes: the generic `DataProtocol` path instantiates its types at run time, in every process.
    private static func checksum(_ bytes: ArraySlice<UInt8>) -> SHA256.Digest {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize()
    }

    static func decode(_ bytes: ArraySlice<UInt8>) throws(Wire.Violation) -> [String: Entry] {
        let digestSize = SHA256.byteCount
        guard bytes.count >= magic.count + digestSize else { throw Wire.Violation(description: "the file is truncated") }
        let body = bytes[bytes.startIndex..<bytes.endIndex - digestSize]
        guard checksum(body).elementsEqual(bytes[(bytes.endIndex - digestSize)...]) else {
            throw Wire.Violation(description: "its checksum does not match: truncated or damaged")
        }
        var reader = WireReader(body)
        guard try reader.raw(magic.count).elementsEqual(magic) else { throw Wire.Violation(description: "not a Graft registry cache") }
        let format = try reader.u16(), major = try reader.u16(), minor = try reader.u16()
        let architecture = try reader.string(), version = try reader.string()
        guard format == formatVersion, Int(major) == ABIVersion.host.major, Int(minor) == ABIVersion.host.minor,
            architecture == Wire.architecture, version == GraftHost.version
        else {
            throw Wire.Violation(description: "written by another Graft (format \(format), ABI \(major).\(minor), \(architecture), \(version))")
        }
        let list = try reader.list { (reader) throws(Wire.Violation) -> Entry in
            let realPath = try reader.string()
            let identity = try reader.identity()
            let written = try reader.i64()
            let hash = try reader.optional()
            var signature: SignatureCheck.Record?
            if try reader.bool() {
                let file = try reader.identity(), keyID = try reader.string(), count = try reader.u32()
                guard count == 32 else { throw Wire.Violation(description: "a signature key of \(count) bytes") }
                signature = SignatureCheck.Record(signatureFile: file, keyID: keyID, key: Array(try reader.raw(Int(count))))
            }
            let outcome: Outcome
            switch try reader.u8() {
            case Kind.described.rawValue:
                let path = try reader.string()
                outcome = .described(try reader.plugin(path: path))
            case Kind.quarantined.rawValue:
                outcome = .quarantined(try reader.error(path: realPath))
            case let kind:
                throw Wire.Violation(description: "unknown entry kind \(kind)")
            }
            return Entry(realPath: realPath, identity: identity, outcome: outcome, hash: hash, written: written, signature: signature)
        }
        guard reader.isAtEnd else { throw Wire.Violation(description: "trailing bytes") }
        return Dictionary(list.map { ($0.realPath, $0) }, uniquingKeysWith: { _, last in last })
    }
}

extension WireWriter {
    fileprivate mutating func identity(_ identity: FileIdentity) {
        u64(identity.device)
        u64(identity.inode)
        i64(identity.size)
        i64(identity.modified)
        i64(identity.changed)
    }
}

extension WireReader {
    fileprivate mutating func identity() throws(Wire.Violation) -> FileIdentity {
        FileIdentity(device: try u64(), inode: try u64(), size: try i64(), modified: try i64(), changed: try i64())
    }
}
