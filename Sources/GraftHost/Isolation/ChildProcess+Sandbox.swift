import CGraftSystem
import Dispatch
import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A sandboxed child: what it says it applied checked against what its host
/// requires, its filter answered, and what the sandbox refused it.
extension ChildProcess {
    /// Checks what the child says it applied of its sandbox against what its
    /// host requires, and starts answering its filter.
    func accept(_ status: ChildSandbox.Status?) throws(GraftError) {
        let listener = receivedListener
        receivedListener = -1
        // Closed unless a watch takes it.
        var watched = false
        defer { if !watched && listener >= 0 { close(listener) } }
        guard let sandbox else { return }
        guard let status else {
            stop()
            throw GraftError(.sandboxUnavailable, "\(executable) did not enter the sandbox its host asked for; it was stopped.", path: executable)
        }
        sandboxStatus = status
        if !status.isComplete {
            let missing = status.missing.isEmpty ? "the sandbox" : status.missing
            if sandbox.mode == .enforced {
                stop()
                throw GraftError(
                    .sandboxUnavailable,
                    "this system cannot sandbox plugins (missing: \(missing)); they do not run unsandboxed. Set the sandbox to best-effort (`--sandbox best-effort`, `GraftConfiguration.sandbox.mode`) to run them with what the kernel has, or off for plugins trusted like the app's own.",
                    path: executable)
            }
            if !Self.warnedIncomplete.exchange(true, ordering: .relaxed) {
                logger?.warning("sandbox_unavailable: plugins run with a partial sandbox (missing: \(missing)).")
            }
        }
        if !status.degraded.isEmpty, !Self.warnedDegraded.exchange(true, ordering: .relaxed) {
            logger?.warning("sandbox_unavailable: plugins run without part of their isolation (missing: \(status.degraded)); Landlock and seccomp still hold.")
        }
        if listener >= 0 {
            watched = true
            let watch = SandboxWatch(
                listener: listener, process: pid, policy: sandbox.policy, quotas: Self.quotas(sandbox.policy, status),
                position: { [weak self] in self?.streamPosition() ?? .max })
            sandboxWatch = watch
            SandboxMonitor.shared.watch(watch)
        }
    }

    /// The child's folders on the host's disk that the host keeps under a
    /// size: its data folder, and its private folder when the kernel gave it
    /// no tmpfs (the child says in its hello).
    static func quotas(_ policy: SandboxPolicy, _ status: ChildSandbox.Status) -> [FolderQuota] {
        var quotas: [FolderQuota] = []
        let fileLimit = policy.fileLimit(privateTmpfs: status.privateTmpfs)
        if let data = policy.dataFolder, let limit = policy.dataLimit {
            // Where the child names it (see `graft_sandbox_enter`): bound into its tmpfs, through a descriptor, or its own path.
            let named =
                status.privateTmpfs ? policy.privateFolder.map { $0 + "/data" } ?? data
                : status.user != geteuid() ? "/proc/self/fd/\(SandboxPolicy.dataDescriptor)" : data
            quotas.append(FolderQuota(childPath: named, hostPath: data, limit: limit, fileLimit: fileLimit, what: "its data folder"))
        }
        if let privateFolder = policy.privateFolder, !status.privateTmpfs {
            quotas.append(
                FolderQuota(
                    childPath: privateFolder, hostPath: privateFolder, limit: policy.privateSize, files: policy.privateFiles,
                    fileLimit: fileLimit, what: "its private folder"))
        }
        return quotas
    }

    /// Whether a best-effort sandbox's missing parts, and missing namespaces,
    /// were logged already (once per process each).
    private static let warnedIncomplete = Atomic<Bool>(false)
    private static let warnedDegraded = Atomic<Bool>(false)
    /// The acts the sandbox refused this child before it had sent `end`
    /// bytes (`lastFrameEnd`: those made while the request just answered was
    /// served), oldest first; all of them when nil.
    package func sandboxDenials(before end: UInt64? = nil) -> [SandboxDenial] {
        sandboxWatch?.take(before: end) ?? []
    }

    /// Bytes the child has sent so far: those taken plus those waiting.
    private func streamPosition() -> UInt64 {
        positionLock.lock()
        defer { positionLock.unlock() }
        if let ring { return consumed + ringWaiting(ring) }
        var waiting: Int32 = 0
        _ = ioctl(channel, UInt(FIONREAD), &waiting)
        return consumed + UInt64(max(waiting, 0))
    }

    /// What a sandboxed child sees of the environment: the locale and the
    /// time zone, and its private folder as TMPDIR and HOME.
    static func sandboxedEnvironment(temporaryFolder: String) -> [String: String] {
        var environment: [String: String] = [:]
        for (name, value) in ProcessInfo.processInfo.environment
        where name == "LANG" || name == "LANGUAGE" || name.hasPrefix("LC_") || name == "TZ" || name == "GRAFT_MEMBARRIER" {
            environment[name] = value
        }
        environment["TMPDIR"] = temporaryFolder
        environment["HOME"] = temporaryFolder
        environment["PATH"] = "/usr/bin:/bin"
        return environment
    }
}
