import CGraftSandbox
import CGraftSystem
import GraftSupport

#if canImport(Glibc)
import Glibc
#endif

/// One sandboxed child as its host watches it: the filter's listener, the
/// judge of what it asks, and the acts refused to it that the calls they
/// happened in have not taken yet.
///
/// Each refused act is stamped with how far the child's answers had got on
/// its channel at that moment (`position`): the thread that asked is stopped
/// until the host answers, so an act stamped before the end of an answer
/// happened while the request it answers was served, and one stamped after
/// it, later. That is how a scanner with many files in flight, or a runner
/// with a destroy posted behind a render, names the right plugin.
final class SandboxWatch: @unchecked Sendable {
    let listener: Int32
    private let process: pid_t
    private let policy: SandboxPolicy
    /// Made on the monitor thread when the child first asks (resolving the
    /// policy's folders costs a few system calls a child's start need not wait
    /// for); used by that thread only.
    lazy var judge = SandboxJudge(process: process, policy: policy)
    /// What the host does on the child's behalf, and the child's folders on
    /// disk it keeps under a size; used by the monitor thread only.
    let hostCalls: SandboxHostCalls
    /// How much of the monitor thread's time the child may still take now
    /// (see `SandboxMonitor.serve`); used by the monitor thread only.
    var credit = SandboxMonitor.creditLimit
    var creditCheckedAt = ContinuousClock.now
    /// Bytes the child has sent on its channel so far; set by its `ChildProcess`.
    let position: @Sendable () -> UInt64

    // Guarded by `lock`.
    private let lock = Lock()
    private var refused: [(position: UInt64, denial: SandboxDenial)] = []
    private var dropped = 0
    fileprivate var retired = false

    /// Refused acts kept per child until a call takes them; more are counted.
    static let keptLimit = 64

    init(
        listener: Int32, process: pid_t, policy: SandboxPolicy, quotas: [FolderQuota] = [],
        position: @escaping @Sendable () -> UInt64
    ) {
        self.listener = listener
        self.process = process
        self.policy = policy
        self.position = position
        hostCalls = SandboxHostCalls(process: process, quotas: quotas)
    }

    fileprivate func record(_ denial: SandboxDenial) {
        let stamp = position()
        lock.withLock { if refused.count < Self.keptLimit { refused.append((stamp, denial)) } else { dropped += 1 } }
    }

    /// The acts refused before the child had sent `end` bytes (all when nil),
    /// oldest first; a last entry counts those not kept.
    func take(before end: UInt64? = nil) -> [SandboxDenial] {
        lock.lock()
        defer { lock.unlock() }
        let split = end.map { end in refused.firstIndex { $0.position >= end } ?? refused.count } ?? refused.count
        var taken = refused[..<split].map(\.denial)
        refused.removeFirst(split)
        if dropped > 0, refused.isEmpty {
            taken.append(SandboxDenial(call: "…", act: "\(dropped) more refused acts, not kept"))
            dropped = 0
        }
        return taken
    }
}

/// The host's side of every sandboxed child's filter: one thread that waits
/// on all their listeners, judges each call asked of it (`SandboxJudge`),
/// answers at once, and keeps what it refused for the call it happened in
/// (`SandboxWatch`). A child's thread that asks waits only for this answer:
/// the thread never waits on anything else, and closes a listener only when
/// its child is gone or its owner lets it go.
final class SandboxMonitor: @unchecked Sendable {
    static let shared = SandboxMonitor()

    // Guarded by `lock`.
    private let lock = Lock()
    private var watches: [SandboxWatch] = []
    /// Wakes the thread when a watch comes or goes: the read and write ends of a pipe.
    private let wake: Int32
    private let waker: Int32
    /// System call names by number; used by the monitor thread only.
    private var names: [Int32: String] = [:]

    private init() {
        var ends: [Int32] = [-1, -1]
        _ = graft_pipe_cloexec(&ends)
        (wake, waker) = (ends[0], ends[1])
        _ = fcntl(wake, F_SETFL, fcntl(wake, F_GETFL) | O_NONBLOCK)
        _ = fcntl(waker, F_SETFL, fcntl(waker, F_GETFL) | O_NONBLOCK)
        startThread(named: "graft.sandbox") { [unowned self] in self.loop() }
    }

    func watch(_ watch: SandboxWatch) {
        lock.withLock { watches.append(watch) }
        signal()
    }

    /// Stops watching; the listener is closed by the monitor thread (never
    /// while it might be polling it).
    func unwatch(_ watch: SandboxWatch) {
        lock.withLock { watch.retired = true }
        signal()
    }

    private func signal() {
        var one: UInt8 = 1
        _ = write(waker, &one, 1)
    }

    /// The monitor's time one child may take: at most `creditLimit` at once,
    /// earned back at `creditRate` (a tenth of a CPU). A child that floods its
    /// filter with refused or questioned calls (tens of thousands a second)
    /// then waits for its answers, each thread inside its call, while every
    /// other child's calls are answered as fast as before. A child's start
    /// and a plugin's ordinary opens (a scan of hundreds of files) stay well
    /// inside the first half second.
    static let creditLimit = Duration.milliseconds(500)
    static let creditRate = 0.1

    private func loop() {
        while true {
            let current: [SandboxWatch] = lock.withLock {
                for watch in watches where watch.retired {
                    close(watch.listener)
                    watch.hostCalls.close()
                }
                watches.removeAll { $0.retired }
                return watches
            }
            // A child out of credit is not listened to until it has earned some back.
            let now = ContinuousClock.now
            var timeout: Duration?
            var listened: [SandboxWatch] = []
            for watch in current {
                let earned = (now - watch.creditCheckedAt) * Self.creditRate
                watch.credit = min(Self.creditLimit, watch.credit + earned)
                watch.creditCheckedAt = now
                if watch.credit > .zero {
                    listened.append(watch)
                } else {
                    let wait = (.zero - watch.credit) / Self.creditRate + .microseconds(100)
                    timeout = min(timeout ?? wait, wait)
                }
            }
            var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            descriptors += listened.map { pollfd(fd: $0.listener, events: Int16(POLLIN), revents: 0) }
            let milliseconds = timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 + 1) } ?? -1
            guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { continue }
            if descriptors[0].revents != 0 {
                var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                _ = read(wake, &bytes, 32)
            }
            for (index, watch) in listened.enumerated() {
                let events = descriptors[index + 1].revents
                if events & Int16(POLLIN) != 0 {
                    serve(watch)
                } else if events != 0 {
                    // Every thread of the child is gone: nothing more will come.
                    lock.withLock { watch.retired = true }
                }
            }
        }
    }

    /// Answers one call of `watch`'s child, and charges the time it took to the child's credit.
    private func serve(_ watch: SandboxWatch) {
        let started = ContinuousClock.now
        defer { watch.credit -= ContinuousClock.now - started }
        var call = graft_sandbox_call()
        let status = graft_sandbox_receive(watch.listener, &call)
        if status == ENOENT { return }  // the asking thread was killed meanwhile
        guard status == 0 else {
            lock.withLock { watch.retired = true }
            return
        }
        answer(call, of: watch)
    }

    private func answer(_ call: graft_sandbox_call, of watch: SandboxWatch) {
        let verdict = watch.judge.judge(call, named: name(of: call.nr), memory: ChildMemory(thread: call.pid), host: watch.hostCalls)
        // What was read of the child's memory belongs to this call only if it still waits.
        guard graft_sandbox_call_is_valid(watch.listener, call.id) else { return }
        switch verdict {
        case .allow:
            _ = graft_sandbox_answer(watch.listener, call.id, 0, true)
        case .refuse(let error, let denial):
            watch.record(denial)  // before the answer: the child goes on only after it
            _ = graft_sandbox_answer(watch.listener, call.id, error, false)
        case .answer(let value):
            _ = graft_sandbox_answer_value(watch.listener, call.id, value)
        case .fail(let error):
            _ = graft_sandbox_answer(watch.listener, call.id, error, false)
        }
    }

    private func name(of number: Int32) -> String {
        if let name = names[number] { return name }
        let cName = graft_syscall_name(number)
        defer { free(cName) }
        let name = cName.map { String(cString: $0) } ?? "system call \(number)"
        names[number] = name
        return name
    }
}
